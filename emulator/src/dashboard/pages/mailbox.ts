import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Services } from '../../deps.ts';
import { ApiError } from '../../errors.ts';
import { encodeCursor, parseListQuery } from '../../domain/list-query.ts';
import { FOLDERS, type EmailSummary } from '../../domain/types.ts';
import { page } from '../layout.ts';
import { addressText, seg, when } from '../format.ts';
import { listTable } from '../parts.ts';

/** The API's filters of `GET /emails` (§4.2), as the form names them. */
const FILTERS = [
  'folder',
  'read',
  'starred',
  'q',
  'from',
  'subject',
  'dateFrom',
  'dateTo',
] as const;

/**
 * `/dashboard/mailboxes/:address`: the mailbox's mail, newest first, paged, filtered and
 * searched exactly as the API does it (same parser, same store query, same cursors).
 */
export function mailboxPage(services: Services) {
  const { directory, emails } = services;
  return (c: Context) => {
    const mailbox = directory.mailbox(c.req.param('address') ?? '');
    const chosen: Record<string, string> = {};
    for (const name of FILTERS) {
      const value = c.req.query(name);
      if (value !== undefined && value !== '') chosen[name] = value;
    }
    const cursor = c.req.query('cursor');
    const params: Record<string, string[]> = { mailbox: [mailbox.address] };
    for (const [name, value] of Object.entries(chosen)) params[name] = [value];
    if (cursor) params.cursor = [cursor];

    let list;
    let error: string | undefined;
    try {
      const query = parseListQuery(params);
      const found = emails.list(query.filter, query.limit, query.after);
      const last = found.emails.at(-1);
      const next = found.more && last ? encodeCursor(last, query.fingerprint) : null;
      list = emailTable(found.emails, next, chosen, mailbox.address, cursor !== undefined);
    } catch (caught) {
      if (!(caught instanceof ApiError)) throw caught;
      error = `${caught.message}${caught.field ? ` (${caught.field})` : ''}`;
    }
    return page(
      c,
      {
        title: mailbox.displayName
          ? `${mailbox.displayName} <${mailbox.address}>`
          : mailbox.address,
        section: '/',
        live: [`mailbox:${mailbox.address}`],
        error,
        body: html`${filterForm(mailbox.address, chosen)} ${list ?? ''}`,
      },
      error === undefined ? 200 : 400,
    );
  };
}

function option(value: string, label: string, current: string | undefined) {
  return html`<option value="${value}" ${current === value ? 'selected' : ''}>${label}</option>`;
}

function filterForm(address: string, chosen: Record<string, string>) {
  const yesNo = (name: 'read' | 'starred') =>
    html`<label
      >${name}
      <select name="${name}">
        ${option('', 'any', chosen[name] ?? '')} ${option('true', 'yes', chosen[name])}
        ${option('false', 'no', chosen[name])}
      </select></label
    >`;
  const text = (name: string, label: string, type = 'text') =>
    html`<label
      >${label} <input type="${type}" name="${name}" value="${chosen[name] ?? ''}"
    /></label>`;
  return html`<form class="filters" method="get" action="/dashboard/mailboxes/${seg(address)}">
    ${text('q', 'Search (q)', 'search')} ${text('from', 'From contains')}
    ${text('subject', 'Subject contains')}
    <label
      >Folder
      <select name="folder">
        ${option('', 'all', chosen.folder ?? '')} ${FOLDERS.map((f) => option(f, f, chosen.folder))}
      </select></label
    >
    ${yesNo('read')} ${yesNo('starred')} ${text('dateFrom', 'Received from (UTC)', 'date')}
    ${text('dateTo', 'Received before (UTC)', 'date')}
    <button type="submit">Filter</button>
    <a href="/dashboard/mailboxes/${seg(address)}">Clear</a>
  </form>`;
}

function emailTable(
  emails: EmailSummary[],
  next: string | null,
  chosen: Record<string, string>,
  address: string,
  paged: boolean,
) {
  const base = `/dashboard/mailboxes/${seg(address)}`;
  const query = new URLSearchParams(chosen);
  const first = query.toString() === '' ? base : `${base}?${query}`;
  if (next !== null) query.set('cursor', next);
  const rows = emails.map(
    (e) =>
      html`<tr class="${e.read ? 'read' : 'unread'}" data-email-id="${e.id}">
        <td class="star">${e.starred ? html`<span aria-label="starred">★</span>` : ''}</td>
        <td>${addressText(e.from)}</td>
        <td>
          <a href="/dashboard/emails/${seg(e.id)}">${e.subject || '(no subject)'}</a>
          <span class="snippet">${e.snippet}</span>
        </td>
        <td class="folder"><span class="badge">${e.folder}</span></td>
        <td class="muted files">
          ${e.attachmentCount === 0 ? '' : e.attachmentCount === 1 ? '1 file' : `${e.attachmentCount} files`}
        </td>
        <td>${when(e.receivedAt)}</td>
      </tr>`,
  );
  return html`${listTable(
      'emails',
      ['', 'From', 'Subject', 'Folder', '', 'Received'],
      rows,
      'No email matches.',
    )}
    <div class="pager">
      ${paged ? html`<a href="${first}">« Newest</a>` : ''}
      ${next === null ? '' : html`<a href="${base}?${query}" rel="next">Older »</a>`}
    </div>`;
}
