import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Services } from '../../deps.ts';
import { page } from '../layout.ts';
import { actionButton, seg, when } from '../format.ts';
import { listTable, ownerAndScopeFields, scopeText, secretNotice } from '../parts.ts';

/**
 * `/dashboard/keys`: API keys without their secrets (§2.1), disable and enable, and a form
 * that creates one; `created` is the answer of that form, the only time its secret is shown.
 */
export function keysPage(
  services: Services,
  c: Context,
  created?: { name: string; secret: string },
) {
  const owners = services.directory.owners();
  const ownerName = new Map(owners.map((o) => [o.id, o.name]));
  const back = '/dashboard/keys';
  const rows = services.directory.keys().map(
    (k) =>
      html`<tr data-key-id="${k.id}">
        <td>${k.name}</td>
        <td class="muted">${k.id}</td>
        <td>${ownerName.get(k.ownerId) ?? k.ownerId}</td>
        <td>${scopeText(k)}</td>
        <td>
          ${
            k.disabled
              ? html`<span class="badge disabled">disabled</span>`
              : html`<span class="badge active">active</span>`
          }
        </td>
        <td>${when(k.createdAt)}</td>
        <td>
          ${
            k.disabled
              ? actionButton(`/dashboard/keys/${seg(k.id)}/enable`, 'Enable', back)
              : actionButton(`/dashboard/keys/${seg(k.id)}/disable`, 'Disable', back, {
                  danger: true,
                })
          }
        </td>
      </tr>`,
  );
  return page(
    c,
    {
      title: 'API keys',
      section: back,
      body: html`${
          created === undefined
            ? ''
            : secretNotice(
                html`Key “${created.name}” created. Copy its secret now: it is never shown again.`,
                created.secret,
              )
        }
        ${listTable(
          'keys',
          ['Name', 'Id', 'Owner', 'Scope', 'Status', 'Created', ''],
          rows,
          'No API key yet.',
        )}
        <h2>Create a key</h2>
        <form class="card" method="post" action="/dashboard/keys" id="create-key">
          <label>Name <input name="name" required /></label>
          ${ownerAndScopeFields(owners)}
          <button type="submit">Create key</button>
        </form>`,
    },
    created === undefined ? 200 : 201,
  );
}
