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
  // The summary's object given more keys, not spread into a new one: on Node 20 a spread
  // followed by ten more keys took ~38 us a call against ~0.3 us (issue 31 item 1: every
  // detail read and PATCH answer).
  return Object.assign(emailSummary(email), {
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
  });
}

const SNIPPET_LENGTH = 200;

/**
 * The start of the text body, whitespace collapsed, at most 200 code points (D-3). Reads only as
 * far as the snippet needs (a 5 MiB body spread into an array of code points cost about a
 * second of garbage collection per send), and takes the text a slice at a time, a slice running
 * on across single spaces (what collapsing leaves of them), where adding it a code point at a
 * time made a string a character (about 5 KB of allocation for every message SMTP stores,
 * issue 31 item 2).
 */
export function snippetOf(text: string | null): string {
  if (text === null) return '';
  let snippet = '';
  let length = 0;
  let at = 0;
  const end = text.length;
  while (length < SNIPPET_LENGTH) {
    while (at < end && isWhitespace(text.charCodeAt(at))) at += 1;
    if (at === end) break;
    if (length > 0) {
      snippet += ' ';
      length += 1;
    }
    const from = at;
    while (at < end && length < SNIPPET_LENGTH) {
      const unit = text.charCodeAt(at);
      if (isWhitespace(unit)) {
        // One space before more text is what collapsing makes of it: the slice runs on.
        if (unit !== 0x20 || at + 1 === end || isWhitespace(text.charCodeAt(at + 1))) break;
        at += 1;
      } else {
        // A surrogate pair is one code point (never whitespace); a lone surrogate is one too.
        at += unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(at + 1)) ? 2 : 1;
      }
      length += 1;
    }
    snippet += text.slice(from, at);
  }
  return snippet;
}

/** What `/\s/` matches: every whitespace code point is one UTF-16 unit. */
function isWhitespace(unit: number): boolean {
  return unit <= 0x20
    ? unit === 0x20 || (unit >= 0x09 && unit <= 0x0d)
    : unit >= 0xa0 &&
        (unit === 0xa0 ||
          unit === 0x1680 ||
          (unit >= 0x2000 && unit <= 0x200a) ||
          unit === 0x2028 ||
          unit === 0x2029 ||
          unit === 0x202f ||
          unit === 0x205f ||
          unit === 0x3000 ||
          unit === 0xfeff);
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
