import type { Email, EmailFilter, Folder, ListPosition } from '../domain/types.ts';
import { composeMime } from '../mime/compose.ts';
import type { OutboxEntry } from '../store/outbox-store.ts';
import type { Store } from '../store/store.ts';
import type { EmulatorEvents } from '../events.ts';

export type { OutboxEntry };

/** An email's RFC 822 source, and where its bytes came from. */
export interface EmailSource {
  raw: Buffer;
  /** The bytes as they arrived, as they were sent (kept by the outbox), or composed again. */
  kind: 'arrived' | 'sent' | 'composed';
}

/**
 * Mail as the dashboard reads and changes it (its pages and actions go through services, never
 * the store): an email, a mailbox's page of emails with the API's own filters and cursors, the
 * same changes the API's PATCH and DELETE make (§4.5, §4.6), attachments, the captured outbox
 * and an email's source.
 */
export class EmailService {
  constructor(
    private readonly store: Store,
    private readonly events: EmulatorEvents,
  ) {}

  get(id: string): Email | undefined {
    return this.store.emails.get(id);
  }

  /** A page of a mailbox's emails, as GET /emails lists them (§4.2). */
  list(filter: EmailFilter, limit: number, after?: ListPosition) {
    return this.store.emails.list(filter, limit, after);
  }

  /** As the API's PATCH: the change is published, so a wait for mail (D-71) sees it too. */
  update(id: string, changes: { folder?: Folder; read?: boolean; starred?: boolean }): void {
    const mailbox = this.store.emails.headline(id)?.mailbox;
    if (!this.store.emails.update(id, changes) || mailbox === undefined) return;
    this.events.publish({ type: 'email.updated', emailId: id, mailbox });
  }

  delete(id: string): void {
    this.store.emails.delete(id);
  }

  attachment(id: string) {
    return this.store.emails.attachment(id);
  }

  /** Every message that left the deployment, as the outbox captured it. */
  outbox(): OutboxEntry[] {
    return this.store.outbox.list();
  }

  outboxEntry(id: string) {
    return this.store.outbox.get(id);
  }

  /**
   * An email's RFC 822 source. Mail that arrived as a raw message keeps its bytes, read back
   * here (the store has no getter for them, and a read-only query here keeps the store as it
   * is), in its contents or, for a large message, in parts apart (email_raw, migration 012); a
   * sent copy of mail that went out has the bytes the outbox captured. Any other sent copy, a
   * local delivery or a JSON-injected email keeps no bytes: its message is composed
   * again with the same composer and stored fields (From, To, Cc, Subject, Message-ID,
   * threading, Date, both parts, attachments), which is what it was built from, boundaries
   * aside.
   */
  async source(email: Email): Promise<EmailSource> {
    const { store } = this;
    const row = store.db
      .prepare('SELECT c.raw FROM emails e JOIN email_contents c ON c.seq = e.seq WHERE e.id = ?')
      .get(email.id) as { raw: Buffer | null } | undefined;
    if (row?.raw) return { raw: row.raw, kind: 'arrived' };
    const parts = store.db
      .prepare('SELECT raw FROM email_raw WHERE email_id = ? ORDER BY part')
      .pluck()
      .all(email.id) as Buffer[];
    if (parts.length > 0) return { raw: Buffer.concat(parts), kind: 'arrived' };
    // A sent copy is the rendering for its first To; when that recipient was outside, the
    // outbox kept the exact bytes that went to it.
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
}
