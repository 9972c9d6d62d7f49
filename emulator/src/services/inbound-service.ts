import type { AddressObject, EmailAddress, HeaderLines, ParsedMail } from 'mailparser';
import { ApiError, quoteForMessage } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Ids } from '../ids.ts';
import { canonicalReceivedAddress, parseAddress } from '../domain/addresses.ts';
import { snippetOf } from '../domain/email-view.ts';
import { parseTimestampParam } from '../domain/query-params.ts';
import {
  FOLDERS,
  type Address,
  type Email,
  type Folder,
  type NewAttachment,
} from '../domain/types.ts';
import type { Store } from '../store/store.ts';
import { requireText } from './directory-service.ts';
import type { EmulatorEvents } from '../events.ts';

/** mailparser loads with the first raw message, so start-up waits for it only if a fixture has one. */
let mailparser: Promise<typeof import('mailparser')> | undefined;
const loadMailparser = () => (mailparser ??= import('mailparser'));
/** html-to-text too: only HTML-only raw messages need it. */
let htmlText: Promise<typeof import('../domain/html-text.ts')> | undefined;
const loadHtmlText = () => (htmlText ??= import('../domain/html-text.ts'));

/** An inbound email described field by field (the control plane's JSON form). */
export interface InboundEmail {
  mailbox: string;
  from: string;
  to?: string[];
  cc?: string[];
  replyTo?: string[];
  subject?: string;
  text?: string | null;
  html?: string | null;
  receivedAt?: string;
  sentAt?: string | null;
  messageId?: string;
  inReplyTo?: string | null;
  references?: string[];
  folder?: Folder;
  read?: boolean;
  starred?: boolean;
  attachments?: { name: string; contentType?: string; contentBase64: string }[];
}

/** Where the mail lands and how it is flagged, for either form. */
export interface Placement {
  mailbox: string;
  folder?: Folder;
  read?: boolean;
  starred?: boolean;
  receivedAt?: string;
}

/** What a message says, whichever form it came in; the mailbox's copy adds the rest. */
type MessageContent = Pick<
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

/**
 * IDs a fixture fixes instead of letting the emulator mint them, so the spec's examples name
 * demo mail that exists (issue 27 item 9). Each must be unused; the API never sets them.
 */
export interface FixedIds {
  /** The email's id. */
  id?: string;
  /** Attachment ids by position; a missing entry is minted. */
  attachmentIds?: (string | undefined)[];
}

/** A raw message parsed by `InboundService.parseRaw`, not yet delivered anywhere. */
export interface ParsedMessage {
  content: MessageContent;
  /** Attachments without IDs: each delivery gives its copy its own (D-33). */
  attachments: Omit<NewAttachment, 'id'>[];
  raw: Uint8Array;
}

/**
 * New email reaching a mailbox from outside (§6.1 "a new email reaches a mailbox"): injected as
 * JSON fields or as a raw RFC 822 message parsed with mailparser, attachments included.
 */
export class InboundService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: Ids,
    /** The emulator's event bus (AppDeps.events): every stored email is published on it. */
    private readonly events: EmulatorEvents,
    private readonly onDelivered: (email: Email) => void = () => {},
  ) {}

  injectJson(input: InboundEmail, fixed: FixedIds = {}): Email {
    const addresses = (list: unknown, field: string): Address[] => {
      if (list === undefined) return [];
      if (!Array.isArray(list))
        throw new ApiError('invalid_field', `${field} must be an array of addresses.`, field);
      return list.map((entry, i) => requireAddress(entry, `${field}[${i}]`));
    };
    const text = optionalText(input.text, 'text');
    const html = optionalText(input.html, 'html');
    const attachments = (input.attachments ?? []).map((a, i): NewAttachment => {
      const field = `attachments[${i}]`;
      const base64 = requireText(a?.contentBase64, `${field}.contentBase64`, 64 * 1024 * 1024);
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64))
        throw new ApiError(
          'invalid_field',
          'contentBase64 is not base64.',
          `${field}.contentBase64`,
        );
      return {
        id: fixed.attachmentIds?.[i] ?? this.ids.uuid(),
        name: requireText(a.name, `${field}.name`, 255),
        contentType:
          a.contentType === undefined
            ? 'application/octet-stream'
            : requireText(a.contentType, `${field}.contentType`, 255),
        bytes: Buffer.from(base64, 'base64'),
      };
    });
    const references = input.references ?? [];
    if (!Array.isArray(references) || !references.every((r) => typeof r === 'string')) {
      throw new ApiError(
        'invalid_field',
        'references must be an array of message ids.',
        'references',
      );
    }
    return this.store.transaction(() =>
      this.deliver(
        {
          mailbox: input.mailbox,
          folder: input.folder,
          read: input.read,
          starred: input.starred,
          receivedAt: input.receivedAt,
        },
        {
          from: requireAddress(input.from, 'from'),
          to: addresses(input.to, 'to'),
          cc: addresses(input.cc, 'cc'),
          replyTo: addresses(input.replyTo, 'replyTo'),
          subject:
            input.subject === undefined ? '' : requireTextAllowEmpty(input.subject, 'subject', 998),
          text: text ?? null,
          html: html ?? null,
          sentAt: input.sentAt == null ? null : parseTimestampParam('sentAt', input.sentAt),
          messageId: input.messageId,
          inReplyTo: input.inReplyTo ?? null,
          references,
        },
        attachments,
        undefined,
        fixed,
      ),
    );
  }

  /** Parses a raw RFC 822 message with mailparser and delivers it, attachments included. */
  async injectRaw(raw: Uint8Array, placement: Placement): Promise<Email> {
    return this.deliverParsed(await this.parseRaw(raw), placement);
  }

  /**
   * The asynchronous half of `injectRaw`: parses with mailparser and stores nothing, so a caller
   * (the fixture loader) can parse every message first and then write them all in one transaction.
   */
  async parseRaw(raw: Uint8Array): Promise<ParsedMessage> {
    if (raw.length === 0) throw new ApiError('invalid_field', 'The message is empty.', 'body');
    const [{ simpleParser }, { textOfHtml }] = await Promise.all([
      loadMailparser(),
      loadHtmlText(),
    ]);
    let parsed: ParsedMail;
    try {
      // mailparser's own HTML-to-text step has no depth bound (45 s for 200,000 nested
      // elements); the text of HTML-only mail is made by textOfHtml below instead.
      parsed = await simpleParser(Buffer.from(raw), { skipHtmlToText: true });
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
   * The synchronous half of `injectRaw`: delivers a message `parseRaw` returned, in one
   * transaction (nested in the caller's, if any). Attachment IDs are made here, per delivery.
   */
  deliverParsed(message: ParsedMessage, placement: Placement, fixed: FixedIds = {}): Email {
    const attachments = message.attachments.map((a, i) => ({
      id: fixed.attachmentIds?.[i] ?? this.ids.uuid(),
      ...a,
    }));
    return this.store.transaction(() =>
      this.deliver(placement, message.content, attachments, message.raw, fixed),
    );
  }

  /** A fixed id must name nothing yet: an email, or an attachment or upload (they share `GET /attachments/{id}`). */
  private refuseTaken(fixed: FixedIds): void {
    if (fixed.id !== undefined && this.store.emails.get(fixed.id) !== undefined) {
      throw new ApiError(
        'invalid_field',
        `An email ${quoteForMessage(fixed.id)} exists already.`,
        'id',
      );
    }
    for (const [i, id] of (fixed.attachmentIds ?? []).entries()) {
      if (id === undefined) continue;
      if (
        this.store.emails.attachment(id) !== undefined ||
        this.store.uploads.get(id) !== undefined
      ) {
        throw new ApiError(
          'invalid_field',
          `An attachment or upload ${quoteForMessage(id)} exists already.`,
          `attachments[${i}].id`,
        );
      }
    }
  }

  private deliver(
    placement: Placement,
    content: MessageContent,
    attachments: NewAttachment[],
    raw?: Uint8Array,
    fixed: FixedIds = {},
  ): Email {
    const mailbox = this.store.directory.getMailbox(
      requireText(placement.mailbox, 'mailbox', 254).toLowerCase(),
    );
    if (mailbox === undefined)
      throw new ApiError(
        'mailbox_not_found',
        `No mailbox ${quoteForMessage(placement.mailbox)}.`,
        'mailbox',
      );
    const folder = placement.folder ?? 'inbox';
    if (!(FOLDERS as readonly string[]).includes(folder)) {
      throw new ApiError(
        'invalid_folder',
        `Unknown folder "${quoteForMessage(folder)}".`,
        'folder',
      );
    }
    for (const flag of ['read', 'starred'] as const) {
      if (placement[flag] !== undefined && typeof placement[flag] !== 'boolean') {
        throw new ApiError('invalid_field', `${flag} must be a boolean.`, flag);
      }
    }
    const now = this.clock.now();
    const receivedAt =
      placement.receivedAt === undefined
        ? now.toISOString()
        : parseTimestampParam('receivedAt', placement.receivedAt);
    // D-17: receivedAt is never in the future, so new mail always sorts before any cursor.
    if (receivedAt > now.toISOString()) {
      throw new ApiError(
        'invalid_field',
        'receivedAt must not be later than the emulator clock (GET /clock).',
        'receivedAt',
      );
    }
    this.refuseTaken(fixed);
    const id = fixed.id ?? this.ids.emailId(now);
    const email: Email = {
      id,
      mailbox: mailbox.address,
      folder,
      read: placement.read ?? false,
      starred: placement.starred ?? false,
      ...content,
      bcc: [],
      messageId: content.messageId ?? `<${id.toLowerCase()}@${mailbox.domain}>`,
      preheader: null,
      snippet: snippetOf(content.text),
      receivedAt,
      attachmentCount: attachments.length,
      attachments: attachments.map(({ id: attachmentId, name, contentType, bytes }) => ({
        id: attachmentId,
        name,
        contentType,
        size: bytes.length,
      })),
    };
    this.store.emails.insert(email, attachments, raw);
this.events.publish({
      type: 'email.stored',
      emailId: email.id,
      mailbox: email.mailbox,
      folder: email.folder,
    });
    this.onDelivered(email);
    return email;
  }
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

function requireAddress(value: unknown, field: string): Address {
  const text = requireText(value, field, 400);
  const address = parseAddress(text);
  if (address === undefined)
    throw new ApiError(
      'invalid_address',
      `${quoteForMessage(text)} is not an email address.`,
      field,
    );
  return address;
}

function optionalText(value: unknown, field: string): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string')
    throw new ApiError('invalid_field', `${field} must be a string.`, field);
  return value;
}

function requireTextAllowEmpty(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string')
    throw new ApiError('invalid_field', `${field} must be a string.`, field);
  if ([...value].length > maxLength)
    throw new ApiError(
      'subject_too_long',
      `${field} is longer than ${maxLength} characters.`,
      field,
    );
  return value;
}
