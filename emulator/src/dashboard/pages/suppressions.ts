import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Services } from '../../deps.ts';
import { page } from '../layout.ts';
import { actionButton, seg, when } from '../format.ts';
import { listTable } from '../parts.ts';

/** `/dashboard/suppressions`: addresses sends refuse (§4.3 rule 4); add and remove. */
export function suppressionsPage(services: Services) {
  return (c: Context) => {
    const back = '/dashboard/suppressions';
    const rows = services.directory.suppressions().map(
      (s) =>
        html`<tr>
          <td>${s.address}</td>
          <td>${s.reason}</td>
          <td>${when(s.createdAt)}</td>
          <td>
            ${actionButton(`/dashboard/suppressions/${seg(s.address)}/delete`, 'Remove', back, {
              danger: true,
            })}
          </td>
        </tr>`,
    );
    return page(c, {
      title: 'Suppression list',
      section: back,
      body: html`${listTable(
          'suppressions',
          ['Address', 'Reason', 'Since', ''],
          rows,
          'No suppressed address.',
        )}
        <h2>Suppress an address</h2>
        <form class="card" method="post" action="/dashboard/suppressions">
          <label>Address <input name="address" type="email" required /></label>
          <label>Reason <input name="reason" placeholder="manual" /></label>
          <button type="submit">Suppress</button>
        </form>`,
    });
  };
}
