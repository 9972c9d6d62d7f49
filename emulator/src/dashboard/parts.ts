import { html } from 'hono/html';
import { SCOPES, type Owner, type Scope } from '../domain/types.ts';
import type { Markup } from './layout.ts';

/**
 * Pieces several pages share: a list table that says when it is empty, a secret shown once,
 * the owner and scope fields of the key and webhook forms, and a message's headers.
 */

/** A table with a header row; `empty` fills a whole row when there are no rows. */
export function listTable(
  className: string,
  headers: readonly string[],
  rows: Markup[],
  empty: Markup | string,
) {
  // Wrapped: on a narrow screen a wide table scrolls in its own box, not the whole page.
  return html`<div class="table-wrap">
    <table class="${className}">
      <thead>
        <tr>
          ${headers.map((h) => html`<th>${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${
          rows.length === 0
            ? html`<tr>
                <td colspan="${headers.length}" class="muted">${empty}</td>
              </tr>`
            : rows
        }
      </tbody>
    </table>
  </div>`;
}

/** A secret the control plane shows once (§2.1 `sk-`, §2.5 `whsec_`), after `message`. */
export function secretNotice(message: Markup | string, secret: string | undefined) {
  return html`<div class="notice">
    ${message}
    <p class="secret" id="new-secret">${secret}</p>
  </div>`;
}

/** A key's or a webhook's scope in words: the scope and what it covers. */
export function scopeText(x: { scope: Scope; domain: string | null; mailboxes: string[] }) {
  if (x.scope === 'one-domain') return `one-domain ${x.domain ?? ''}`;
  if (x.scope === 'selected-mailbox') return `selected-mailbox ${x.mailboxes.join(', ')}`;
  return x.scope;
}

/** The owner and scope fields keys and webhooks are made with (the control plane's names). */
export function ownerAndScopeFields(owners: readonly Owner[]) {
  return html`<label
      >Owner
      <select name="ownerId">
        ${owners.map((o) => html`<option value="${o.id}">${o.name}</option>`)}
      </select></label
    >
    <label
      >Scope
      <select name="scope">
        ${SCOPES.map((s) => html`<option value="${s}">${s}</option>`)}
      </select></label
    >
    <label>Domain (one-domain) <input name="domain" /></label>
    <label>Mailboxes (selected-mailbox, comma-separated) <input name="mailboxes" /></label>`;
}

/** A message's header fields, one row each, in order. */
export function headersTable(headers: readonly (readonly [string, string])[]) {
  return html`<table class="headers">
    ${headers.map(
      ([name, value]) =>
        html`<tr>
          <th>${name}</th>
          <td>${value}</td>
        </tr>`,
    )}
  </table>`;
}
