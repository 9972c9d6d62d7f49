import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Services } from '../../app.ts';
import { SCOPES, type ApiKey } from '../../domain/types.ts';
import { page } from '../layout.ts';
import { actionButton, seg, when } from '../format.ts';

const scopeText = (k: ApiKey) =>
  k.scope === 'one-domain'
    ? `one-domain ${k.domain ?? ''}`
    : k.scope === 'selected-mailbox'
      ? `selected-mailbox ${k.mailboxes.join(', ')}`
      : k.scope;

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
            : html`<div class="notice">
                Key “${created.name}” created. Copy its secret now: it is never shown again.
                <p class="secret" id="new-secret">${created.secret}</p>
              </div>`
        }
        <table class="keys">
          <thead>
            <tr>
              <th>Name</th>
              <th>Id</th>
              <th>Owner</th>
              <th>Scope</th>
              <th>Status</th>
              <th>Created</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${rows}
          </tbody>
        </table>
        <h2>Create a key</h2>
        <form class="card" method="post" action="/dashboard/keys" id="create-key">
          <label
            >Owner
            <select name="ownerId">
              ${owners.map((o) => html`<option value="${o.id}">${o.name}</option>`)}
            </select></label
          >
          <label>Name <input name="name" required /></label>
          <label
            >Scope
            <select name="scope">
              ${SCOPES.map((s) => html`<option value="${s}">${s}</option>`)}
            </select></label
          >
          <label>Domain (one-domain) <input name="domain" /></label>
          <label>Mailboxes (selected-mailbox, comma-separated) <input name="mailboxes" /></label>
          <button type="submit">Create key</button>
        </form>`,
    },
    created === undefined ? 200 : 201,
  );
}
