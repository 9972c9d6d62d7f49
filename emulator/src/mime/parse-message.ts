import type { AddressObject, EmailAddress, HeaderLines, ParsedMail } from 'mailparser';
import { ApiError } from '../errors.ts';
import { canonicalReceivedAddress } from '../domain/addresses.ts';
import type { Address, Email, NewAttachment } from '../domain/types.ts';

/** mailparser loads with the first raw message, so start-up waits for it only if a fixture has one. */
let mailparser: Promise<typeof import('mailparser')> | undefined;
const loadMailparser = () => (mailparser ??= import('mailparser'));
/** html-to-text too: only HTML-only raw messages need it. */
let htmlText: Promise<typeof import('../domain/html-text.ts')> | undefined;
const loadHtmlText = () => (htmlText ??= import('../domain/html-text.ts'));

/** What a message says, whichever form it came in; the mailbox's copy adds the rest. */
export type MessageContent = Pick<
  Email,
  | 'from'
  | 'to'
  | 'cc'
  | 'replyTo'
  | 'subject'
  | 'text'
  | 'html'
  | 'sentAt'
  | 'inReplyTo'
  | 'references'
> & {
  messageId: string | undefined;
};

/** A raw message parsed by `parseMessage`, not yet delivered anywhere. */
export interface ParsedMessage {
  content: MessageContent;
  /** Attachments without IDs: each delivery gives its copy its own (D-33). */
  attachments: Omit<NewAttachment, 'id'>[];
  raw: Uint8Array;
  /**
   * The text and HTML as the UTF-8 bytes of `JSON.stringify` of each (null when absent), when
   * they were made on a render thread (parse-off-thread.ts).
   */
  json?: { text: Uint8Array | null; html: Uint8Array | null };
}

/**
 * Parses a raw RFC 822 message with mailparser (§6.1 "a new email reaches a mailbox"), on the
 * thread that calls it: attachments kept, the text of HTML-only mail made by textOfHtml. A
 * message mailparser refuses is 400 `invalid_message`; one without a From address
 * `invalid_field`.
 */
export async function parseMessage(raw: Uint8Array): Promise<ParsedMessage> {
  if (raw.length === 0) throw new ApiError('invalid_field', 'The message is empty.', 'body');
  const [{ simpleParser }, { textOfHtml }] = await Promise.all([loadMailparser(), loadHtmlText()]);
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  let parsed: ParsedMail;
  try {
    // mailparser's own HTML-to-text step has no depth bound (45 s for 200,000 nested
    // elements); the text of HTML-only mail is made by textOfHtml below instead. Its
    // `textAsHtml` (the text part linkified, about a third of its time) is never used, so it
    // is skipped, unless a text part went into `html` too (htmlHadText), then parsed again.
    parsed = await simpleParser(bytes, { skipHtmlToText: true, skipTextToHtml: true });
    if (htmlHadText(parsed, bytes)) parsed = await simpleParser(bytes, { skipHtmlToText: true });
  } catch (error) {
    throw unparseable(error);
  }
  const from = receivedAddresses(parsed.from)[0];
  if (from === undefined)
    throw new ApiError('invalid_field', 'The message has no From address.', 'body');
  const references =
    parsed.references === undefined
      ? []
      : Array.isArray(parsed.references)
        ? parsed.references
        : [parsed.references];
  return {
    content: {
      from,
      to: receivedAddresses(parsed.to),
      cc: receivedAddresses(parsed.cc),
      replyTo: receivedAddresses(parsed.replyTo),
      subject: parsed.subject ?? '',
      text: textOf(parsed, textOfHtml),
      html: typeof parsed.html === 'string' ? parsed.html : null,
      sentAt: sentAtOf(parsed.headerLines),
      messageId: parsed.messageId,
      inReplyTo: parsed.inReplyTo ?? null,
      references,
    },
    attachments: parsed.attachments.map((a, i) => ({
      name: a.filename ?? `attachment-${i + 1}`,
      contentType: a.contentType || 'application/octet-stream',
      bytes: a.content,
    })),
    raw,
  };
}

/**
 * Whether, parsed with `skipTextToHtml`, a text part may have gone into `html`: mailparser
 * puts a text part that is not an alternative of an HTML part (text beside HTML in
 * `multipart/mixed`) into `html` as linkified HTML, parts joined with `<br/>\n`, and that
 * option makes such a part `''`. So `html` is then left out (the text part was all of it),
 * `''`, or holds the separator. Left out is also what a message without HTML gives, so that
 * case counts only when the message's bytes mention `html` at all. Wrong only towards
 * caution: an HTML part that holds the separator itself costs a second parse.
 */
function htmlHadText(parsed: ParsedMail, bytes: Buffer): boolean {
  if (typeof parsed.html === 'string') return parsed.html === '' || parsed.html.includes('<br/>\n');
  return typeof parsed.text === 'string' && /html/i.test(bytes.toString('latin1'));
}

/** The text part, or for HTML-only mail the text of its HTML; null when it has neither. */
function textOf(parsed: ParsedMail, textOfHtml: (html: string) => string): string | null {
  if (parsed.text !== undefined && parsed.text !== '') return parsed.text;
  if (typeof parsed.html === 'string') return textOfHtml(parsed.html);
  return parsed.text ?? null;
}

/**
 * A raw message mailparser refuses is the client's fault (400 `invalid_message`, nothing
 * stored), never a 500: a header block over 1 MiB, more than 1,000 MIME parts, an HTML body it
 * cannot turn into text. The parser's own words are not echoed.
 */
function unparseable(error: unknown): ApiError {
  const reason = error instanceof Error ? error.message : '';
  const why = /max header size/i.test(reason)
    ? 'A header block of the message (its own or one of its MIME parts) is larger than 1 MiB.'
    : /child nodes/i.test(reason)
      ? 'The message has more than 1,000 MIME parts.'
      : 'The message cannot be parsed as an RFC 5322 / MIME message.';
  return new ApiError('invalid_message', why, 'body');
}

/**
 * The addresses of an address header in order, members of groups (`Team: a@x, b@x;`) included
 * in their place; the group's name is not an address and is dropped, and so is any entry that
 * is no address by D-50.
 */
function receivedAddresses(value: AddressObject | AddressObject[] | undefined): Address[] {
  const members = (entries: EmailAddress[]): EmailAddress[] =>
    entries.flatMap((entry) => (entry.group === undefined ? [entry] : members(entry.group)));
  const entries = (Array.isArray(value) ? value : value ? [value] : []).flatMap((header) =>
    members(header.value),
  );
  return entries.flatMap((entry) => {
    const address = canonicalReceivedAddress(entry.address ?? '');
    return address === undefined ? [] : [{ address, name: entry.name === '' ? null : entry.name }];
  });
}

/**
 * The `Date` header as UTC, or null when it is absent or unreadable (EmailDetail.sentAt).
 * mailparser puts the time of parsing in place of an unreadable date, so the header is read
 * here from its raw line: the last one, as mailparser takes it, unfolded, parsed as mailparser
 * parses it. A year beyond 0-9999 has no RFC 3339 form and counts as unreadable.
 */
function sentAtOf(headerLines: HeaderLines): string | null {
  const line = headerLines.filter((header) => header.key === 'date').at(-1)?.line;
  if (line === undefined) return null;
  const date = new Date(
    line
      .slice(line.indexOf(':') + 1)
      .replace(/\r?\n/g, '')
      .trim(),
  );
  const year = date.getUTCFullYear();
  return Number.isNaN(year) || year < 0 || year > 9999 ? null : date.toISOString();
}
