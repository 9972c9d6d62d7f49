import { ApiError, quoteForMessage } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Ids } from '../ids.ts';
import { emailDetail, snippetOf } from '../domain/email-view.ts';
import { parseTimestampParam } from '../domain/query-params.ts';
import { FOLDERS, type Email, type Folder, type NewAttachment } from '../domain/types.ts';
import type { Store } from '../store/store.ts';
import { requireText } from './directory-service.ts';
import type { EmulatorEvents } from '../events.ts';
import type { BodyRenderer } from '../mime/render-pool.ts';
import { parseMessage, type MessageContent, type ParsedMessage } from '../mime/parse-message.ts';
import { OFF_THREAD_MESSAGE_BYTES } from '../mime/parse-off-thread.ts';
import { jsonMessage, type InboundEmail } from './inbound-fields.ts';
import { detailJson, encodeBodies, type EncodedBodies } from './detail-json.ts';
import { nextTurn } from './next-turn.ts';

export type { InboundEmail } from './inbound-fields.ts';
export type { ParsedMessage } from '../mime/parse-message.ts';

/** Where the mail lands and how it is flagged, for either form. */
export interface Placement {
  mailbox: string;
  folder?: Folder;
  read?: boolean;
  starred?: boolean;
  receivedAt?: string;
}

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
    /**
     * Offers each stored email to webhooks (AppDeps' dispatcher), with its detail's bytes when
     * they were made in steps (detail-json.ts).
     */
    private readonly onDelivered: (email: Email, detail?: () => Uint8Array) => void = () => {},
    /**
     * Parses large raw messages off the event loop (AppDeps.renderer); without one, every raw
     * message is parsed on the calling thread.
     */
    private readonly renderer?: BodyRenderer,
  ) {}

  injectJson(input: InboundEmail, fixed: FixedIds = {}): Email {
    const { content, attachments } = jsonMessage(input);
    return this.store.transaction(() =>
      this.deliver(
        {
          mailbox: input.mailbox,
          folder: input.folder,
          read: input.read,
          starred: input.starred,
          receivedAt: input.receivedAt,
        },
        content,
        attachments.map((a, i) => ({ id: fixed.attachmentIds?.[i] ?? this.ids.uuid(), ...a })),
        undefined,
        fixed,
      ),
    );
  }

  /** Parses a raw RFC 822 message with mailparser and delivers it, attachments included. */
  async injectRaw(raw: Uint8Array, placement: Placement): Promise<Email> {
    return (await this.receiveRaw(raw, placement)).email;
  }

  /**
   * `injectRaw`, with the bytes of the email's detail (D-4) for an answer. A large message is
   * delivered in turns of its own (issue 27 item 1): its parts are decoded in the turn its parse
   * comes back from the render thread (about 30 ms for a 4.5 MB text), and it is stored with its
   * webhook deliveries in the next. The detail a webhook is sent (and the answer) carries its
   * text and HTML as JSON, encoded on the render thread (parsed here, in a turn of their own).
   */
  async receiveRaw(
    raw: Uint8Array,
    placement: Placement,
  ): Promise<{ email: Email; detail: () => Buffer<ArrayBuffer> }> {
    const large = raw.length > OFF_THREAD_MESSAGE_BYTES; // before its bytes move to the thread
    const message = await this.parseRaw(raw);
    let bodies: EncodedBodies | undefined;
    const { text, html } = message.content;
    if (message.json !== undefined) {
      // Encoded on the render thread as it parsed: nothing left to serialise here.
      bodies = { text, html, textJson: message.json.text, htmlJson: message.json.html };
      await nextTurn();
    } else if (large) {
      await nextTurn();
      bodies = encodeBodies(text, html);
      await nextTurn();
    }
    let detail: (() => Buffer<ArrayBuffer>) | undefined;
    const email = this.deliverParsed(message, placement, {}, bodies, (made) => (detail = made));
    return { email, detail: detail ?? (() => Buffer.from(JSON.stringify(emailDetail(email)))) };
  }

  /**
   * The asynchronous half of `injectRaw`: parses with mailparser and stores nothing, so a caller
   * (the fixture loader) can parse every message first and then write them all in one transaction.
   */
  async parseRaw(raw: Uint8Array): Promise<ParsedMessage> {
    const offThread = this.renderer?.parseMessage;
    return offThread !== undefined && raw.length > OFF_THREAD_MESSAGE_BYTES
      ? offThread.call(this.renderer, raw)
      : parseMessage(raw);
  }

  /**
   * The synchronous half of `injectRaw`: delivers a message `parseRaw` returned, in one
   * transaction (nested in the caller's, if any). Attachment IDs are made here, per delivery.
   */
  deliverParsed(
    message: ParsedMessage,
    placement: Placement,
    fixed: FixedIds = {},
    bodies?: EncodedBodies,
    withDetail?: (detail: () => Buffer<ArrayBuffer>) => void,
  ): Email {
    const attachments = message.attachments.map((a, i) => ({
      id: fixed.attachmentIds?.[i] ?? this.ids.uuid(),
      ...a,
    }));
    return this.store.transaction(() =>
      this.deliver(placement, message.content, attachments, message.raw, fixed, bodies, withDetail),
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
    bodies?: EncodedBodies,
    withDetail?: (detail: () => Buffer<ArrayBuffer>) => void,
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
    if (bodies === undefined) {
      this.onDelivered(email);
      return email;
    }
    // Made at most once, for the webhooks that hear of it and for the answer.
    let made: Buffer<ArrayBuffer> | undefined;
    const detail = () => (made ??= detailJson(email, bodies));
    withDetail?.(detail);
    this.onDelivered(email, detail);
    return email;
  }
}
