import { ApiError, quoteForMessage } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Ids } from '../ids.ts';
import type { Access } from '../domain/access.ts';
import { pickBody, type GivenBody } from '../domain/message-body.ts';
import { checkRecipientCount, requireAddress, requireAddresses } from '../domain/recipients.ts';
import { checkCallerVariables, checkNamesSupplied, variablesUsed } from '../domain/templates.ts';
import {
  forwardSubject,
  replyRecipients,
  replySubject,
  replyThreading,
} from '../domain/threading.ts';
import type { Address, Email, Mailbox } from '../domain/types.ts';
import type { CheckedRequest, LargeField } from './checked-request.ts';
import { sharedRenderPool, type BodyRenderer } from '../mime/render-pool.ts';
import type { Store } from '../store/store.ts';
import { faultError, type FaultInjector } from './faults.ts';
import type { LocalDelivery } from './local-delivery.ts';
import type { EmulatorEvents } from '../events.ts';
import { DraftRenderer } from './render-draft.ts';
import {
  fieldsOf,
  uniqueAddresses,
  type AttachmentSource,
  type Draft,
  type Rendered,
  type RequestBody,
} from './send-draft.ts';
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS } from './send-limits.ts';
import { nextTurn } from './next-turn.ts';
import { SendPersistence } from './send-persistence.ts';

export type { AttachmentSource } from './send-draft.ts';
export { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS, MAX_MESSAGE_BYTES } from './send-limits.ts';

/**
 * What creates mail (§4.3, §4.7, §4.8): checks every rule before anything is written, renders
 * templates (§2.6) and builds the real MIME message (render-draft.ts), then stores the sender's
 * copy in `sent`, a copy in the inbox of every recipient that is a mailbox here, and captures
 * mail for everyone else in the outbox (send-persistence.ts), before it answers.
 */
export class SendService {
  private readonly drafts: DraftRenderer;
  private readonly persistence: SendPersistence;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: Ids,
    private readonly faults: FaultInjector,
    private readonly attachments: AttachmentSource,
    /** Signs unsubscribe links so they cannot be forged for another address. */
    unsubscribeKey: string,
    /** The emulator's event bus (AppDeps.events): every stored email is published on it. */
    events: EmulatorEvents,
    onDelivered: (email: Email) => void = () => {},
    /** When inbox copies arrive; without it (or with no delay) at once, with the send. */
    delivery?: LocalDelivery,
    /** Renders bodies: large ones on worker threads, so no send holds the event loop. */
    renderer: BodyRenderer = sharedRenderPool,
  ) {
    this.drafts = new DraftRenderer(renderer, unsubscribeKey);
    this.persistence = new SendPersistence(store, ids, events, onDelivered, delivery);
  }

  /** `body` was checked against SendEmailRequest at the edge (http/send-request.ts). */
  async send(access: Access, body: CheckedRequest, origin: string): Promise<Email> {
    const { request: checked, large } = body;
    const request = checked as RequestBody<'SendEmailRequest'>;
    const given = pickBody(request) as GivenBody;
    const from = requireAddress(request.from, 'from');
    const mailbox = access.mailboxes.get(from.address);
    if (mailbox === undefined)
      throw new ApiError(
        'mailbox_not_found',
        `No mailbox ${quoteForMessage(from.address)} is available to this key.`,
        'from',
      );
    const to = [requireAddress(request.to, 'to')];
    const cc = requireAddresses(request.cc, 'cc');
    const bcc = requireAddresses(request.bcc, 'bcc');
    return this.dispatch(
      {
        operation: 'send',
        mailbox,
        from: { address: mailbox.address, name: from.name ?? mailbox.displayName },
        to,
        cc,
        bcc,
        recipientFields: fieldsOf(to, cc, bcc),
        subject: { template: request.subject },
        preheader: request.preheader,
        body: given,
        variables: request.variables ?? {},
        inReplyTo: null,
        references: [],
        attachments: this.uploads(access, request.attachmentIds),
        large,
      },
      origin,
    );
  }

  async reply(
    access: Access,
    original: Email,
    body: CheckedRequest,
    origin: string,
  ): Promise<Email> {
    const { request: checked, large } = body;
    const request = checked as RequestBody<'ReplyRequest'>;
    const given = pickBody(request) as GivenBody;
    const mailbox = access.mailboxes.get(original.mailbox) as Mailbox;
    const derived = replyRecipients(original, mailbox.address, request.replyAll ?? false);
    const extraCc = requireAddresses(request.cc, 'cc');
    const bcc = requireAddresses(request.bcc, 'bcc');
    const cc = [...derived.cc, ...extraCc];
    return this.dispatch(
      {
        operation: 'reply',
        mailbox,
        from: { address: mailbox.address, name: mailbox.displayName },
        to: derived.to,
        cc,
        bcc,
        recipientFields: fieldsOf(derived.to, cc, bcc, derived.cc.length),
        subject: { literal: replySubject(original.subject) },
        preheader: request.preheader,
        body: given,
        variables: request.variables ?? {},
        ...replyThreading(original),
        attachments: this.uploads(access, request.attachmentIds),
        large,
      },
      origin,
    );
  }

  async forward(
    access: Access,
    original: Email,
    body: CheckedRequest,
    origin: string,
  ): Promise<Email> {
    const { request: checked, large } = body;
    const request = checked as RequestBody<'ForwardRequest'>;
    const given = pickBody(request, { optional: true });
    const mailbox = access.mailboxes.get(original.mailbox) as Mailbox;
    const to = [requireAddress(request.to, 'to')];
    const cc = requireAddresses(request.cc, 'cc');
    const bcc = requireAddresses(request.bcc, 'bcc');
    return this.dispatch(
      {
        operation: 'forward',
        mailbox,
        from: { address: mailbox.address, name: mailbox.displayName },
        to,
        cc,
        bcc,
        recipientFields: fieldsOf(to, cc, bcc),
        subject:
          request.subject === undefined
            ? { literal: forwardSubject(original.subject) }
            : { template: request.subject },
        preheader: request.preheader,
        body: given ?? { kind: 'original', text: original.text, html: original.html },
        variables: request.variables ?? {},
        inReplyTo: null,
        references: [],
        attachments:
          request.attachmentIds === undefined
            ? this.originalAttachments(original)
            : this.uploads(access, request.attachmentIds),
        large,
      },
      origin,
    );
  }

  private async dispatch(draft: Draft, origin: string): Promise<Email> {
    checkRecipientCount([
      ['to', draft.to.length],
      ['cc', draft.cc.length],
      ['bcc', draft.bcc.length],
    ]);
    checkCallerVariables(draft.variables);
    const used = this.variablesOf(draft);
    checkNamesSupplied(used, draft.variables);
    this.checkAttachmentLimits(draft);
    for (const recipient of [...draft.to, ...draft.cc, ...draft.bcc]) {
      if (this.store.directory.isSuppressed(recipient.address)) {
        throw new ApiError(
          'recipient_suppressed',
          `${quoteForMessage(recipient.address)} is suppressed; nothing was sent.`,
          draft.recipientFields.get(recipient.address),
        );
      }
    }

    // {{email}} and {{unsubscribe_url}} differ per recipient; otherwise one rendering serves all.
    const personal = used.some((names) =>
      names.some((v) => v === 'email' || v === 'unsubscribe_url'),
    );
    const now = this.clock.now();
    const sentId = this.ids.emailId(now);
    const messageId = `<${sentId.toLowerCase()}@${draft.mailbox.domain}>`;
    const recipients = uniqueAddresses([...draft.to, ...draft.cc, ...draft.bcc]);
    const renderings = new Map<string, Rendered>();
    const renderFor = async (recipient: Address) => {
      const key = personal ? recipient.address : '';
      let rendered = renderings.get(key);
      if (rendered === undefined) {
        rendered = await this.drafts.render(draft, recipient, origin, messageId, now);
        renderings.set(key, rendered);
      }
      return rendered;
    };
    const primary = await renderFor(draft.to[0] as Address);
    for (const recipient of recipients) await renderFor(recipient);

    const fault = this.faults.take(draft.operation);
    if (fault?.mode === 'error') throw faultError(fault);

    // A large body's parts were decoded in the turn its rendering came back: storing it waits
    // for the next (issue 27 item 1).
    await nextTurn();
    const sent = await this.persistence.save({
      draft,
      primary,
      renderings,
      personal,
      recipients,
      sentId,
      messageId,
      now,
    });
    if (fault?.mode === 'timeout-after-commit') throw faultError(fault);
    return sent;
  }

  /**
   * The variables each template of the draft uses: subject (when given), preheader, text or
   * Markdown body; a large one's were found where it was parsed (prepare-request.ts).
   */
  private variablesOf(draft: Draft): string[][] {
    const of = (template: string | undefined, large: LargeField | undefined) =>
      large?.used ?? (template === undefined ? [] : variablesUsed(template));
    const body =
      draft.body.kind === 'text' || draft.body.kind === 'markdown'
        ? of(draft.body.source, draft.large[draft.body.kind])
        : [];
    return [
      'template' in draft.subject ? variablesUsed(draft.subject.template) : [],
      draft.preheader === undefined ? [] : variablesUsed(draft.preheader),
      body,
    ];
  }

  private checkAttachmentLimits(draft: Draft): void {
    if (draft.attachments.length > MAX_ATTACHMENTS) {
      throw new ApiError(
        'too_many_attachments',
        `At most ${MAX_ATTACHMENTS} files per email; got ${draft.attachments.length}.`,
        'attachmentIds',
      );
    }
    const bytes = draft.attachments.reduce((sum, a) => sum + a.bytes.length, 0);
    if (bytes > MAX_ATTACHMENT_BYTES) {
      throw new ApiError(
        'attachments_too_large',
        `The attachments add up to ${bytes} bytes; at most ${MAX_ATTACHMENT_BYTES} (3 MiB) per email. For larger files, put the upload's url in the body instead of its id (§8).`,
        'attachmentIds',
      );
    }
  }

  private uploads(access: Access, ids: string[] | undefined): Draft['attachments'] {
    return ids === undefined || ids.length === 0
      ? []
      : this.attachments.resolve(access.owner.id, ids);
  }

  private originalAttachments(original: Email): Draft['attachments'] {
    return original.attachments.map((a) => {
      const stored = this.store.emails.attachment(a.id);
      if (stored === undefined)
        throw new Error(`attachment ${a.id} of ${original.id} has no bytes`);
      return { name: a.name, contentType: a.contentType, bytes: stored.bytes };
    });
  }
}
