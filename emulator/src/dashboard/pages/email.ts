import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Services } from '../../deps.ts';
import { ApiError, quoteForMessage } from '../../errors.ts';
import { FOLDERS, type Email } from '../../domain/types.ts';
import { page } from '../layout.ts';
import { addressList, addressText, bytes, seg, when } from '../format.ts';
import { headersOf } from '../email-source.ts';
import { hasRemoteContent, mailFrame } from '../email-frame.ts';
import { headersTable } from '../parts.ts';

const SOURCE_NOTE = {
  arrived: 'The message exactly as it arrived.',
  sent: 'The message exactly as it was sent (kept by the outbox).',
  composed:
    'Composed again from the stored email (this copy keeps no original bytes); MIME boundaries differ from the message sent.',
} as const;

/** The email page's tabs, in order; `?tab=` picks one (the page works without script). */
export const EMAIL_TABS = ['html', 'text', 'attachments', 'headers', 'source'] as const;
type EmailTab = (typeof EMAIL_TABS)[number];

/** How much of a source is shown inline; the .eml download always has all of it. */
const SHOWN_SOURCE_BYTES = 256 * 1024;

export function findEmail(services: Services, id: string | undefined): Email {
  const email = id === undefined ? undefined : services.emails.get(id);
  if (email === undefined) {
    throw new ApiError('email_not_found', `No email ${quoteForMessage(id ?? '')}.`, 'emailId');
  }
  return email;
}

/** `/dashboard/emails/:id`: one email with its HTML, text, headers, source and attachments. */
export function emailPage(services: Services) {
  return async (c: Context) => {
    const email = findEmail(services, c.req.param('id'));
    const { raw, kind } = await services.emails.source(email);
    const remote = c.req.query('remote') === '1';
    const base = `/dashboard/emails/${seg(email.id)}`;
    const shown = raw.subarray(0, SHOWN_SOURCE_BYTES).toString('utf8');
    const meta = [
      ['From', addressText(email.from)],
      ['To', addressList(email.to)],
      ['Cc', addressList(email.cc)],
      ['Bcc', addressList(email.bcc)],
      ['Reply-To', addressList(email.replyTo)],
      ['Mailbox', `${email.mailbox} (${email.folder})`],
      ['Flags', `${email.read ? 'read' : 'unread'}${email.starred ? ', starred' : ''}`],
      ['Message-ID', email.messageId],
      ['In-Reply-To', email.inReplyTo ?? ''],
    ].filter(([, value]) => value !== '');
    const htmlPart =
      email.html === null
        ? html`<p class="muted">This email has no HTML part.</p>`
        : html`${
              hasRemoteContent(email.html) && !remote
                ? html`<p class="notice">
                    Remote content (images, styles from other sites) is blocked.
                    <a href="${base}?remote=1&amp;tab=html" id="load-remote">Load remote content</a>
                  </p>`
                : ''
            }
            <iframe
              class="mail"
              title="HTML body"
              sandbox="allow-popups allow-popups-to-escape-sandbox"
              referrerpolicy="no-referrer"
              src="${base}/body.html${remote ? '?remote=1' : ''}"
            ></iframe>`;
    const panels: Record<EmailTab, { label: string; body: unknown }> = {
      html: { label: 'HTML', body: htmlPart },
      text: {
        label: 'Text',
        body:
          email.text === null
            ? html`<p class="muted">This email has no text part.</p>`
            : html`<pre class="text-body">${email.text}</pre>`,
      },
      attachments: {
        label: `Attachments (${email.attachments.length})`,
        body:
          email.attachments.length === 0
            ? html`<p class="muted">None.</p>`
            : html`<ul>
                ${email.attachments.map(
                  (a) =>
                    html`<li>
                      <a href="${base}/attachments/${seg(a.id)}" download="${a.name}">${a.name}</a>
                      <span class="muted">${a.contentType}, ${bytes(a.size)}</span>
                    </li>`,
                )}
              </ul>`,
      },
      headers: { label: 'Headers', body: headersTable(headersOf(raw)) },
      source: {
        label: 'Source',
        body: html`<p class="muted">
            ${SOURCE_NOTE[kind]}
            ${
              raw.length > SHOWN_SOURCE_BYTES
                ? ` Showing the first ${bytes(SHOWN_SOURCE_BYTES)} of ${bytes(raw.length)}.`
                : ''
            }
          </p>
          <pre class="source">${shown}</pre>`,
      },
    };
    const asked = c.req.query('tab');
    const current: EmailTab = EMAIL_TABS.includes(asked as EmailTab)
      ? (asked as EmailTab)
      : email.html === null && email.text !== null
        ? 'text'
        : 'html';
    return page(c, {
      title: email.subject || '(no subject)',
      section: '/',
      body: html`<p>
          <a href="/dashboard/mailboxes/${seg(email.mailbox)}">« ${email.mailbox}</a> ·
          <a href="${base}/eml" download>Download .eml</a>
        </p>
        ${emailControls(email, base)}
        <dl class="meta">
          ${meta.map(
            ([name, value]) =>
              html`<dt>${name}</dt>
                <dd>${value}</dd>`,
          )}
          <dt>Sent</dt>
          <dd>${when(email.sentAt)}</dd>
          <dt>Received</dt>
          <dd>${when(email.receivedAt)}</dd>
        </dl>
        <div class="tabs">
          <div role="tablist" aria-label="Parts of the email">
            ${EMAIL_TABS.map(
              (tab) =>
                html`<a
                  role="tab"
                  id="tab-${tab}"
                  href="?tab=${tab}${remote ? '&remote=1' : ''}"
                  aria-controls="panel-${tab}"
                  aria-selected="${tab === current ? 'true' : 'false'}"
                  tabindex="${tab === current ? '0' : '-1'}"
                  >${panels[tab].label}</a
                >`,
            )}
          </div>
          ${EMAIL_TABS.map(
            (tab) =>
              html`<section
                role="tabpanel"
                id="panel-${tab}"
                aria-labelledby="tab-${tab}"
                tabindex="0"
                ${tab === current ? '' : 'hidden'}
              >
                ${panels[tab].body}
              </section>`,
          )}
        </div>`,
    });
  };
}

/**
 * Read/unread, star/unstar, move and delete: plain forms (no script needed) posted to
 * actions.ts, which applies them as the API's PATCH and DELETE do (services/email-service.ts).
 */
function emailControls(email: Email, base: string) {
  const flag = (name: 'read' | 'starred', value: boolean, label: string) =>
    html`<form method="post" action="${base}/update" class="inline">
      <input type="hidden" name="${name}" value="${String(value)}" />
      <button type="submit" class="secondary" id="${name}-${String(value)}">${label}</button>
    </form>`;
  return html`<div class="email-actions" role="group" aria-label="Email actions">
    ${email.read ? flag('read', false, 'Mark unread') : flag('read', true, 'Mark read')}
    ${email.starred ? flag('starred', false, 'Unstar') : flag('starred', true, 'Star')}
    <form method="post" action="${base}/update" class="inline move">
      <label
        >Folder
        <select name="folder" id="move-folder">
          ${FOLDERS.map(
            (f) => html`<option value="${f}" ${f === email.folder ? 'selected' : ''}>${f}</option>`,
          )}
        </select></label
      >
      <button type="submit" class="secondary" id="move">Move</button>
    </form>
    <details class="delete">
      <summary>Delete…</summary>
      <form method="post" action="${base}/delete" class="inline">
        <span>Permanent: the email cannot be recovered (move it to trash to keep it).</span>
        <button type="submit" class="danger" id="delete">Delete permanently</button>
      </form>
    </details>
  </div>`;
}

/** `/dashboard/emails/:id/body.html`: the HTML part alone, sandboxed (email-frame.ts). */
export function emailBody(services: Services) {
  return (c: Context) => {
    const email = findEmail(services, c.req.param('id'));
    return mailFrame(c, email.html ?? '', c.req.query('remote') === '1');
  };
}

/** `/dashboard/emails/:id/eml`: the source as a download. */
export function emailEml(services: Services) {
  return async (c: Context) => {
    const email = findEmail(services, c.req.param('id'));
    const { raw } = await services.emails.source(email);
    return download(c, raw, 'message/rfc822', `${email.id}.eml`);
  };
}

/** `/dashboard/emails/:id/attachments/:attachmentId`: one attachment, always as a download. */
export function emailAttachment(services: Services) {
  return (c: Context) => {
    const email = findEmail(services, c.req.param('id'));
    const id = c.req.param('attachmentId');
    const stored = email.attachments.some((a) => a.id === id)
      ? services.emails.attachment(id ?? '')
      : undefined;
    if (stored === undefined) {
      throw new ApiError('attachment_not_found', `No attachment ${quoteForMessage(id ?? '')}.`);
    }
    return download(c, stored.bytes, stored.attachment.contentType, stored.attachment.name);
  };
}

/** Never rendered in this origin: a download, sandboxed should a browser open it anyway. */
export function download(c: Context, body: Uint8Array, type: string, name: string) {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return c.body(new Uint8Array(body), 200, {
    'Content-Type': type,
    'Content-Disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'Content-Security-Policy': "sandbox; default-src 'none'",
    'X-Content-Type-Options': 'nosniff',
  });
}
