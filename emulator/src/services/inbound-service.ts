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
import type { DeliveryData, StagedPayload } from '../store/webhook-store.ts';
import { inTurns, nextTurn } from './next-turn.ts';
import { partsOf } from '../store/parts.ts';
import type { StagedRaw } from '../store/email-store.ts';

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
     * they were made in steps (detail-json.ts), or written apart already.
     */
    private readonly onDelivered: (email: Email, detail?: () => DeliveryData) => void = () => {},
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
   * comes back from the render thread (about 30 ms for a 4.5 MB text); its raw bytes and its
   * webhooks' data are written a part at a time over the next turns, and the email with its
   * deliveries, naming both, in the last (`deliverInTurns`), where all three were one
   * transaction of 90-156 ms. The detail a webhook is sent (and the answer) carries its text and
   * HTML as JSON, encoded on the render thread (parsed here, in a turn of their own).
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
    if (bodies !== undefined) return this.deliverInTurns(message, placement, bodies);
    const email = this.deliverParsed(message, placement);
    return { email, detail: () => Buffer.from(JSON.stringify(emailDetail(email))) };
  }

  /**
   * Delivers a large parsed message in turns of the event loop, none of which writes more than
   * one of its megabyte pieces: its raw bytes (EmailStore.stageRaw) and the detail its webhooks
   * are sent (WebhookStore.openPayload), each in parts of 64 KiB, a mebibyte a turn (`inTurns`),
   * the detail made in a turn of its own between them; then, in one transaction, the email, its
   * text and its deliveries naming both. Nothing is seen before that transaction (a staged part
   * is read only through the rows that name it); parts it never named are dropped, here if it
   * fails (or no delivery names the detail), or when the store opens after a stop in between.
   * The email's id and receivedAt are made in the first turn: the detail carries them.
   */
  private async deliverInTurns(
    message: ParsedMessage,
    placement: Placement,
    bodies: EncodedBodies,
  ): Promise<{ email: Email; detail: () => Buffer<ArrayBuffer> }> {
    const attachments = message.attachments.map((a) => ({ id: this.ids.uuid(), ...a }));
    const email = this.place(placement, message.content, attachments);
    let raw: StagedRaw | undefined;
    let payload: StagedPayload | undefined;
    try {
      await inTurns(partsOf(message.raw), (bytes, part) => {
        raw = this.store.emails.stageRaw(email.id, part, bytes);
      });
      await nextTurn();
      const detail = detailJson(email, bodies);
      await nextTurn();
      const staged = this.store.webhooks.openPayload(detail.length);
      payload = staged;
      await inTurns(partsOf(detail), (bytes, part) =>
        this.store.webhooks.stagePayloadPart(staged, part, bytes),
      );
      await nextTurn();
      this.store.transaction(() => {
        this.requireMailbox(placement.mailbox); // still there: a reset or a tenant's deletion
        this.store.emails.insert(email, attachments, raw, { inCallersTransaction: true });
        this.stored(email, () => staged);
      });
      return { email, detail: () => detail };
    } catch (error) {
      if (this.store.db.open) this.store.emails.unstageRaw(email.id);
      throw error;
    } finally {
      // Dropped unless a delivery names it (no webhook heard of the email, or it failed).
      if (payload !== undefined && this.store.db.open) this.store.webhooks.unstagePayload(payload);
    }
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

  /**
   * Places and stores an email and tells of it; always called inside a transaction of the
   * store, rolled back whole if this throws (the email takes no savepoint of its own).
   */
  private deliver(
    placement: Placement,
    content: MessageContent,
    attachments: NewAttachment[],
    raw?: Uint8Array,
    fixed: FixedIds = {},
  ): Email {
    const email = this.place(placement, content, attachments, fixed);
    this.store.emails.insert(email, attachments, raw, { inCallersTransaction: true });
    this.stored(email);
    return email;
  }

  /** The mailbox `address` names (any case), or 404 mailbox_not_found. */
  private requireMailbox(address: string) {
    const mailbox = this.store.directory.getMailbox(
      requireText(address, 'mailbox', 254).toLowerCase(),
    );
    if (mailbox === undefined)
      throw new ApiError('mailbox_not_found', `No mailbox ${quoteForMessage(address)}.`, 'mailbox');
    return mailbox;
  }

  /**
   * The email a delivery makes, its placement checked and its ids and receivedAt given; nothing
   * is written.
   */
  private place(
    placement: Placement,
    content: MessageContent,
    attachments: NewAttachment[],
    fixed: FixedIds = {},
  ): Email {
    const mailbox = this.requireMailbox(placement.mailbox);
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
    return {
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
  }

  /** Tells the event bus and the webhooks of an email just stored (in its transaction). */
  private stored(email: Email, detail?: () => DeliveryData): void {
    this.events.publish({
      type: 'email.stored',
      emailId: email.id,
      mailbox: email.mailbox,
      folder: email.folder,
    });
    this.onDelivered(email, detail);
  }
}
