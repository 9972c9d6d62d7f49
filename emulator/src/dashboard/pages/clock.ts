import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Services } from '../../deps.ts';
import { FAULTABLE } from '../../services/faults.ts';
import { page } from '../layout.ts';
import { actionButton, when } from '../format.ts';
import { listTable } from '../parts.ts';
import { chaosSection } from './chaos-section.ts';

/** `/dashboard/clock`: the emulator's clock (moved only forward), the armed faults and chaos rules. */
export function clockPage(services: Services) {
  return (c: Context) => {
    const { clock } = services.deps;
    const back = '/dashboard/clock';
    const faults = services.faults.list();
    return page(c, {
      title: 'Clock & faults',
      section: back,
      body: html`<h2>Clock</h2>
        <dl class="meta">
          <dt>Now</dt>
          <dd id="clock-now">${when(clock.now().toISOString())}</dd>
          <dt>Ahead of real time</dt>
          <dd>${clock.offset} ms</dd>
        </dl>
        <form class="card" method="post" action="/dashboard/clock">
          <label>Advance by <input name="amount" type="number" min="1" value="1" /></label>
          <label
            >Unit
            <select name="unit">
              <option value="60000">minutes</option>
              <option value="3600000">hours</option>
              <option value="86400000">days</option>
              <option value="1000">seconds</option>
            </select></label
          >
          <button type="submit">Advance</button>
        </form>
        <form class="card" method="post" action="/dashboard/clock">
          <label
            >Set to (RFC 3339, only forward)
            <input name="set" placeholder="2027-01-01T00:00:00Z" required
          /></label>
          <button type="submit">Set</button>
        </form>
        <h2>Faults</h2>
        <p class="muted">
          Armed faults make the next sends, replies or forwards fail, to rehearse retries (§4.3).
        </p>
        ${listTable(
          'faults',
          ['Id', 'Operations', 'Mode', 'Status', 'Remaining'],
          faults.map(
            (f) =>
              html`<tr>
                <td>${f.id}</td>
                <td>${f.operations.join(', ')}</td>
                <td>${f.mode}</td>
                <td>${f.status}</td>
                <td>${f.remaining}</td>
              </tr>`,
          ),
          'No fault armed.',
        )}
        ${
          faults.length === 0
            ? ''
            : html`<p>
                ${actionButton('/dashboard/faults/clear', 'Clear all faults', back, { danger: true })}
              </p>`
        }
        <form class="card" method="post" action="/dashboard/faults">
          ${FAULTABLE.map(
            (op) =>
              html`<label
                ><input type="checkbox" name="operations" value="${op}" checked />${op}</label
              >`,
          )}
          <label
            >Mode
            <select name="mode">
              <option value="error">error</option>
              <option value="timeout-after-commit">timeout-after-commit (504)</option>
            </select></label
          >
          <label
            >Status (error)
            <select name="status">
              <option value="503">503</option>
              <option value="500">500</option>
              <option value="502">502</option>
              <option value="504">504</option>
            </select></label
          >
          <label>Count <input name="count" type="number" min="1" value="1" /></label>
          <button type="submit">Arm fault</button>
        </form>
        ${chaosSection(services.chaos)}`,
    });
  };
}
