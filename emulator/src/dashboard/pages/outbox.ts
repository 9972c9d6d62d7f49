import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Services } from '../../deps.ts';
import { ApiError, quoteForMessage } from '../../errors.ts';
import type { OutboxEntry } from '../../services/email-service.ts';
import { page } from '../layout.ts';
import { bytes, seg, when } from '../format.ts';
import { headersOf } from '../email-source.ts';
import { download } from './email.ts';
import { headersTable, listTable } from '../parts.ts';

/** Whether every word of `q` appears in the entry's sender, recipients, subject or ids. */
export function outboxMatches(entry: OutboxEntry, q: string): boolean {
  const haystack = [entry.id, entry.from, ...entry.recipients, entry.subject, entry.messageId]
    .join(' ')
    .toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '')
    .every((word) => haystack.includes(word));
}

/** `/dashboard/outbox`: mail captured on its way out of the deployment (§4.3), searchable. */
export function outboxPage(services: Services) {
  return (c: Context) => {
    const q = c.req.query('q')?.trim() ?? '';
    const all = services.emails.outbox();
    const entries = q === '' ? all : all.filter((e) => outboxMatches(e, q));
    const rows = entries.map(
      (e) =>
        html`<tr data-outbox-id="${e.id}">
          <td><a href="/dashboard/outbox/${seg(e.id)}">${e.subject || '(no subject)'}</a></td>
          <td>${e.from}</td>
          <td>${e.recipients.join(', ')}</td>
          <td>${bytes(e.size)}</td>
          <td>${when(e.createdAt)}</td>
        </tr>`,
    );
    return page(c, {
      title: 'Outbox',
      section: '/dashboard/outbox',
      live: ['outbox'],
      body: html`<p class="muted">
          Mail to addresses that are not mailboxes of this emulator is kept here instead of leaving
          the machine.
        </p>
        <form class="filters" method="get" action="/dashboard/outbox">
          <label>Search <input type="search" name="q" value="${q}" /></label>
          <button type="submit">Search</button>
          <a href="/dashboard/outbox">Clear</a>
        </form>
        <p class="muted">${entries.length} of ${all.length} captured messages</p>
        ${listTable(
          'outbox',
          ['Subject', 'From', 'Recipients', 'Size', 'Captured'],
          rows,
          html`Nothing captured${q ? ' matches' : ' yet'}.`,
        )}`,
    });
  };
}

function found(services: Services, id: string | undefined) {
  const captured = id === undefined ? undefined : services.emails.outboxEntry(id);
  if (captured === undefined) {
    throw new ApiError('not_found', `No captured message ${quoteForMessage(id ?? '')}.`);
  }
  return captured;
}

/** `/dashboard/outbox/:id`: one captured message, its headers and exact source. */
export function outboxEntryPage(services: Services) {
  return (c: Context) => {
    const { entry, raw } = found(services, c.req.param('id'));
    return page(c, {
      title: entry.subject || '(no subject)',
      section: '/dashboard/outbox',
      body: html`<p>
          <a href="/dashboard/outbox">« Outbox</a> ·
          <a href="/dashboard/outbox/${seg(entry.id)}/eml" download>Download .eml</a>
        </p>
        <dl class="meta">
          <dt>From</dt>
          <dd>${entry.from}</dd>
          <dt>Recipients</dt>
          <dd>${entry.recipients.join(', ')}</dd>
          <dt>Message-ID</dt>
          <dd>${entry.messageId}</dd>
          <dt>Sent copy</dt>
          <dd>
            ${
              entry.sentEmailId === null
                ? '—'
                : html`<a href="/dashboard/emails/${seg(entry.sentEmailId)}"
                    >${entry.sentEmailId}</a
                  >`
            }
          </dd>
          <dt>Captured</dt>
          <dd>${when(entry.createdAt)}</dd>
          <dt>Size</dt>
          <dd>${bytes(entry.size)}</dd>
        </dl>
        <h2>Headers</h2>
        ${headersTable(headersOf(raw))}
        <h2>Source</h2>
        <pre class="source">${raw.subarray(0, 256 * 1024).toString('utf8')}</pre>`,
    });
  };
}

export function outboxEml(services: Services) {
  return (c: Context) => {
    const { entry, raw } = found(services, c.req.param('id'));
    return download(c, raw, 'message/rfc822', `${entry.id}.eml`);
  };
}
