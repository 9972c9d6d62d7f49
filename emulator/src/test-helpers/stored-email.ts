import type { Email } from '../domain/types.ts';

/**
 * An email as the store keeps it, for store tests and the bench: what a test names, and for
 * the rest an unread inbox email with no other recipients, no HTML and no attachments, sent
 * when it was received. Not part of the emulator; only tests and the bench import it.
 */
export function storedEmail(
  fields: Pick<Email, 'id' | 'mailbox' | 'from' | 'to' | 'subject' | 'receivedAt' | 'messageId'> &
    Partial<Email>,
): Email {
  return {
    folder: 'inbox',
    read: false,
    starred: false,
    cc: [],
    bcc: [],
    replyTo: [],
    snippet: '',
    text: null,
    html: null,
    preheader: null,
    inReplyTo: null,
    references: [],
    sentAt: fields.receivedAt,
    attachmentCount: 0,
    attachments: [],
    ...fields,
  };
}
