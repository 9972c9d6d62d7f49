import { composeMime } from '../mime/compose.ts';
import type { Email } from '../domain/types.ts';
import type { Store } from '../store/store.ts';

export interface EmailSource {
  raw: Buffer;
  /** The bytes as they arrived, as they were sent (kept by the outbox), or composed again. */
  kind: 'arrived' | 'sent' | 'composed';
}

/**
 * An email's RFC 822 source. Mail that arrived as a raw message keeps its bytes, read back
 * here (the store has no getter for them, and a read-only query here keeps the store as it is);
 * a sent copy of mail that went out has the bytes the outbox captured. Any other sent copy, a
 * local delivery or a JSON-injected email keeps no bytes: its message is composed again with the
 * same composer and stored fields (From, To, Cc, Subject, Message-ID, threading, Date, both
 * parts, attachments), which is what it was built from, boundaries aside.
 */
export async function emailSource(store: Store, email: Email): Promise<EmailSource> {
  const row = store.db
    .prepare('SELECT c.raw FROM emails e JOIN email_contents c ON c.seq = e.seq WHERE e.id = ?')
    .get(email.id) as { raw: Buffer | null } | undefined;
  if (row?.raw) return { raw: row.raw, kind: 'arrived' };
  // A sent copy is the rendering for its first To; when that recipient was outside, the outbox
  // kept the exact bytes that went to it.
  const first = email.to[0]?.address;
  const captured = store.outbox
    .list()
    .find((entry) => entry.sentEmailId === email.id && entry.recipients.includes(first ?? ''));
  const kept = captured === undefined ? undefined : store.outbox.get(captured.id);
  if (kept !== undefined) return { raw: kept.raw, kind: 'sent' };
  const raw = await composeMime({
    from: email.from,
    to: email.to,
    cc: email.cc,
    subject: email.subject,
    text: email.text,
    html: email.html,
    messageId: email.messageId,
    inReplyTo: email.inReplyTo,
    references: email.references,
    date: new Date(email.sentAt ?? email.receivedAt),
    attachments: email.attachments.flatMap((a) => {
      const stored = store.emails.attachment(a.id);
      return stored === undefined
        ? []
        : [{ name: a.name, contentType: a.contentType, bytes: stored.bytes }];
    }),
  });
  return { raw, kind: 'composed' };
}

/** The header block of a message, folded lines joined, as name/value pairs in order. */
export function headersOf(raw: Buffer): [string, string][] {
  const text = raw.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const block = end === -1 ? text : text.slice(0, end);
  const headers: [string, string][] = [];
  for (const line of block.split(/\r?\n/)) {
    const last = headers.at(-1);
    if (/^[ \t]/.test(line) && last !== undefined) last[1] += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) headers.push([line.slice(0, colon), line.slice(colon + 1).trim()]);
    }
  }
  return headers;
}
