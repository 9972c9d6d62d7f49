import type { Email, EmailSummary } from './types.ts';

/** The spec's EmailSummary (D-3): what `GET /emails` lists. */
export function emailSummary(email: EmailSummary) {
  return {
    id: email.id,
    mailbox: email.mailbox,
    folder: email.folder,
    read: email.read,
    starred: email.starred,
    from: email.from,
    to: email.to,
    cc: email.cc,
    subject: email.subject,
    snippet: email.snippet,
    attachmentCount: email.attachmentCount,
    receivedAt: email.receivedAt,
  };
}

/** The spec's EmailDetail (D-4): what `GET /emails/{emailId}` returns, attachment ids included. */
export function emailDetail(email: Email) {
  return {
    ...emailSummary(email),
    bcc: email.bcc,
    replyTo: email.replyTo,
    sentAt: email.sentAt,
    messageId: email.messageId,
    inReplyTo: email.inReplyTo,
    references: email.references,
    text: email.text,
    html: email.html,
    preheader: email.preheader,
    attachments: email.attachments,
  };
}

const SNIPPET_LENGTH = 200;

/** The start of the text body, whitespace collapsed, at most 200 code points (D-3). */
export function snippetOf(text: string | null): string {
  if (text === null) return '';
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return [...collapsed].slice(0, SNIPPET_LENGTH).join('');
}
