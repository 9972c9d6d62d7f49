import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Services } from '../../deps.ts';
import { page } from '../layout.ts';
import { seg, when } from '../format.ts';

/** `/`: every owner with the mailboxes granted to it, and mailboxes no owner holds. */
export function ownersPage(services: Services) {
  const { directory } = services;
  return (c: Context) => {
    const owners = directory.owners();
    const granted = new Set<string>();
    const mailboxLink = (address: string, displayName: string | null) =>
      html`<li>
        <a href="/dashboard/mailboxes/${seg(address)}">${address}</a>
        ${displayName ? html`<span class="muted">${displayName}</span>` : ''}
      </li>`;
    const cards = owners.map((owner) => {
      const mailboxes = directory.grantsOf(owner.id);
      mailboxes.forEach((m) => granted.add(m.address));
      return html`<section class="card-box owner" data-owner-id="${owner.id}">
        <h2>
          ${owner.name} ${owner.disabled ? html`<span class="badge disabled">disabled</span>` : ''}
        </h2>
        <div class="muted">${owner.id} · since ${when(owner.createdAt)}</div>
        ${
          mailboxes.length === 0
            ? html`<p class="muted">No mailbox granted.</p>`
            : html`<ul>
                ${mailboxes.map((m) => mailboxLink(m.address, m.displayName))}
              </ul>`
        }
      </section>`;
    });
    const loose = directory.mailboxes().filter((m) => !granted.has(m.address));
    return page(c, {
      title: 'Owners & mailboxes',
      section: '/',
      body: html`${
        owners.length === 0
          ? html`<p class="muted">
              No owner yet: load a fixture or add one through the control plane.
            </p>`
          : html`<div class="cards">${cards}</div>`
      }
      ${
        loose.length === 0
          ? ''
          : html`<h2>Mailboxes no owner holds</h2>
              <ul>
                ${loose.map((m) => mailboxLink(m.address, m.displayName))}
              </ul>`
      }`,
    });
  };
}
