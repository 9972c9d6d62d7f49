/**
 * Storing a rendered send (§4.3, §4.7, §4.8): mail for addresses that are not mailboxes here
 * captured in the outbox, the sender's copy in `sent`, and a copy in the inbox of every
 * recipient that is a mailbox here (D-70: of the sender's world). Each is written in a
 * transaction of its own and in a turn of the event loop of its own (issue 27 item 1): a copy
 * of a 5 MB body costs about 25 ms to store (its outbox entry twice that), and a send to 50
 * mailboxes held every other request for all of them at once. Every copy is stored before the
 * send is answered, so nothing answered is lost; a reader that looks while a send is being
 * stored may see some of its copies before the others, as with a delivery delay.
 */
import type { Ids } from '../ids.ts';
import { snippetOf } from '../domain/email-view.ts';
import type { Address, Email, Mailbox, NewAttachment } from '../domain/types.ts';
import type { EmulatorEvents } from '../events.ts';
import { searchableText, type StagedMessage } from '../store/outbox-store.ts';
import type { Store } from '../store/store.ts';
import type { LocalDelivery } from './local-delivery.ts';
import { nextTurn } from './next-turn.ts';
import type { Draft, Rendered } from './send-draft.ts';

/**
 * A message from which size its outbox entry is written in turns of their own: 64 KiB (its
 * text lower-cased, its bytes stored) take well under a millisecond, 5 MB tens of them.
 */
const LARGE_MESSAGE = 64 * 1024;

/** What SendService decided and rendered, ready to be stored. */
export interface RenderedSend {
  draft: Draft;
  /** The rendering for the first `to`: every copy's when no template names its recipient. */
  primary: Rendered;
  /** By recipient address when `personal`. */
  renderings: Map<string, Rendered>;
  /** Whether each recipient has a rendering of its own ({{email}}, {{unsubscribe_url}}). */
  personal: boolean;
  /** Every recipient once, in request order. */
  recipients: Address[];
  sentId: string;
  messageId: string;
  now: Date;
}

export class SendPersistence {
  constructor(
    private readonly store: Store,
    private readonly ids: Ids,
    /** The emulator's event bus (AppDeps.events): every stored email is published on it. */
    private readonly events: EmulatorEvents,
    private readonly onDelivered: (email: Email) => void = () => {},
    /** When inbox copies arrive; without it (or with no delay) at once, with the send. */
    private readonly delivery?: LocalDelivery,
    /** Between two copies; injectable so a test can see each copy stored in a turn of its own. */
    private readonly between: () => Promise<void> = nextTurn,
  ) {}

  /**
   * Stores every copy of `send` and returns the sender's; each copy is followed by a turn of
   * the event loop, the last one before the answer (which carries the whole body) is made.
   * With a delivery delay (`--delivery-delay-ms`), the inbox copies are handed to
   * `LocalDelivery` instead and arrive later; the sender's copy and the outbox are never
   * delayed. An inbox copy whose mailbox was deleted while it was on its way is dropped (a
   * deployment would bounce it).
   */
  async save(send: RenderedSend): Promise<Email> {
    const { draft, primary, renderings, personal, recipients, messageId, now } = send;
    const delayed = this.delivery?.delayed ?? false;
    const local: { mailbox: string; arrive: (at: Date) => void }[] = [];
    const external: Address[] = [];
    const senderWorld = this.worldOf(draft.mailbox);
    for (const recipient of recipients) {
      const mailbox = this.store.directory.getMailbox(recipient.address);
      // D-70: a tenant's world is its own; mail to a mailbox of another world leaves through
      // the outbox, as mail to another deployment would.
      if (mailbox === undefined || this.worldOf(mailbox) !== senderWorld) {
        external.push(recipient);
        continue;
      }
      const rendered = personal ? (renderings.get(recipient.address) as Rendered) : primary;
      const arrive = (at: Date) => {
        const delivered = this.copy(
          draft,
          rendered,
          {
            id: this.ids.emailId(at),
            mailbox: mailbox.address,
            folder: 'inbox',
            read: false,
            bcc: [],
          },
          messageId,
          now,
          at,
        );
        this.onDelivered(delivered);
      };
      local.push({ mailbox: mailbox.address, arrive });
    }

    // What leaves the deployment is captured first, so that the sender's copy, once stored,
    // has its outbox entries beside it (a wait for the outbox wakes on that copy, D-71).
    const groups = personal ? external.map((r) => [r]) : external.length > 0 ? [external] : [];
    for (const group of groups) {
      const rendered = personal
        ? (renderings.get((group[0] as Address).address) as Rendered)
        : primary;
      // A large message's entry is written in three turns: the filter's lower-cased copy of its
      // text is made, its bytes are staged (seen by nothing yet), and the entry naming them is
      // written; each held the event loop for tens of milliseconds at 5 MB (issue 27 item 1).
      const text = searchableText(rendered.plain ?? '');
      const id = this.ids.prefixed('out');
      let bytes: Uint8Array | StagedMessage = rendered.raw;
      const large = rendered.raw.length > LARGE_MESSAGE;
      if (large) {
        await this.between();
        bytes = this.store.outbox.stage(id, rendered.raw);
        await this.between();
      }
      try {
        this.store.outbox.add(
          {
            id,
            sentEmailId: send.sentId,
            from: draft.mailbox.address,
            recipients: group.map((r) => r.address),
            subject: rendered.subject,
            messageId,
            createdAt: now.toISOString(),
          },
          bytes,
          text,
        );
      } catch (error) {
        if (large) this.store.outbox.unstage(id);
        throw error;
      }
      await this.between();
    }
    const sentCopy = this.store.transaction(() =>
      this.copy(
        draft,
        primary,
        {
          id: send.sentId,
          mailbox: draft.mailbox.address,
          folder: 'sent',
          read: true,
          bcc: draft.bcc,
        },
        messageId,
        now,
        now,
      ),
    );
    await this.between();
    for (const { mailbox, arrive } of local) {
      if (delayed) {
        // Queued only once the send is stored: a send that failed delivers nothing.
        this.delivery?.schedule((at) => this.arriveIfStill(mailbox, arrive, at));
        continue;
      }
      this.arriveIfStill(mailbox, arrive, now);
      await this.between();
    }
    return sentCopy;
  }

  /** One inbox copy in its own transaction, unless its mailbox is gone by then. */
  private arriveIfStill(mailbox: string, arrive: (at: Date) => void, at: Date): void {
    this.store.transaction(() => {
      if (this.store.directory.getMailbox(mailbox) !== undefined) arrive(at);
    });
  }

  private copy(
    draft: Draft,
    rendered: Rendered,
    place: { id: string; mailbox: string; folder: 'sent' | 'inbox'; read: boolean; bcc: Address[] },
    messageId: string,
    sentAt: Date,
    receivedAt: Date,
  ): Email {
    const attachments: NewAttachment[] = draft.attachments.map((a) => ({
      id: this.ids.uuid(),
      ...a,
    }));
    const email: Email = {
      id: place.id,
      mailbox: place.mailbox,
      folder: place.folder,
      read: place.read,
      starred: false,
      from: draft.from,
      to: draft.to,
      cc: draft.cc,
      bcc: place.bcc,
      replyTo: [],
      subject: rendered.subject,
      snippet: snippetOf(rendered.plain),
      text: rendered.text,
      html: rendered.html,
      preheader: rendered.preheader,
      messageId,
      inReplyTo: draft.inReplyTo,
      references: draft.references,
      receivedAt: receivedAt.toISOString(),
      sentAt: sentAt.toISOString(),
      attachmentCount: attachments.length,
      attachments: attachments.map(({ id, name, contentType, bytes }) => ({
        id,
        name,
        contentType,
        size: bytes.length,
      })),
    };
    // Attachment bytes live once, in blobs (§2.4); the encoded message is kept only where it
    // leaves the deployment (the outbox), not in every mailbox copy.
    this.store.emails.insert(email, attachments);
    this.events.publish({
      type: 'email.stored',
      emailId: email.id,
      mailbox: email.mailbox,
      folder: email.folder,
    });
    return email;
  }

  /** The tenant a mailbox belongs to (D-70), or undefined for the shared world. */
  private worldOf(mailbox: Mailbox): string | undefined {
    return this.store.tenants.idOfDomain(mailbox.domain);
  }
}
