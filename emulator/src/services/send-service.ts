import { ApiError, quoteForMessage } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Ids } from '../ids.ts';
import type { Access } from '../domain/access.ts';
import { snippetOf } from '../domain/email-view.ts';
import { pickBody, type GivenBody } from '../domain/message-body.ts';
import { checkRecipientCount, requireAddress, requireAddresses } from '../domain/recipients.ts';
import {
  checkCallerVariables,
  checkNamesSupplied,
  renderedLength,
  renderTemplate,
  variablesUsed,
  type Variables,
} from '../domain/templates.ts';
import { unsubscribeToken } from '../domain/unsubscribe.ts';
import {
  forwardSubject,
  replyRecipients,
  replySubject,
  replyThreading,
} from '../domain/threading.ts';
import type { Address, Email, Mailbox, NewAttachment } from '../domain/types.ts';
import type { BodyJob, Source } from '../mime/render-body.ts';
import type { CheckedRequest, LargeField, LargeFieldName } from './checked-request.ts';
import { RenderTimeout, sharedRenderPool, type BodyRenderer } from '../mime/render-pool.ts';
import type { components } from '../../../spec/generated/openapi.d.ts';
import type { Store } from '../store/store.ts';
import { faultError, type FaultInjector, type FaultableOperation } from './faults.ts';
import type { Arrival, LocalDelivery } from './local-delivery.ts';
import type { EmulatorEvents } from '../events.ts';

/** §8 limits on what one message carries. */
export const MAX_ATTACHMENTS = 20;
export const MAX_ATTACHMENT_BYTES = 3 * 1024 * 1024;
export const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;

/** Bytes to attach, found by upload id for the key's owner (the attachments seam, §2.4). */
export interface AttachmentSource {
  resolve(
    ownerId: string,
    ids: string[],
  ): { name: string; contentType: string; bytes: Uint8Array }[];
}

/** A message before rendering: every template still a template. */
interface Draft {
  operation: FaultableOperation;
  mailbox: Mailbox;
  from: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  /** Where each recipient came from, to name the field of a suppressed one. */
  recipientFields: Map<string, string>;
  subject: { template: string } | { literal: string };
  preheader: string | undefined;
  body: GivenBody | { kind: 'original'; text: string | null; html: string | null };
  variables: Variables;
  inReplyTo: string | null;
  references: string[];
  attachments: { name: string; contentType: string; bytes: Uint8Array }[];
  /** The request's large strings as bytes (their fields above are empty): never decoded here. */
  large: Partial<Record<LargeFieldName, LargeField>>;
}

interface Rendered {
  subject: string;
  preheader: string | null;
  text: string | null;
  html: string | null;
  /** What the snippet is made from: the text part, else the HTML part's text. */
  plain: string | null;
  raw: Buffer;
}

/** A request body as spec/openapi.yaml defines it (types generated from the contract). */
type RequestBody<Name extends keyof components['schemas']> = components['schemas'][Name];

/**
 * What creates mail (§4.3, §4.7, §4.8): checks every rule before anything is written, renders
 * templates (§2.6), builds the real MIME message, then in one transaction stores the sender's
 * copy in `sent`, a copy in the inbox of every recipient that is a mailbox here, and captures
 * mail for everyone else in the outbox. With a delivery delay (`--delivery-delay-ms`), the
 * inbox copies are handed to `LocalDelivery` instead and arrive later, each in a transaction
 * of its own; the sender's copy and the outbox are never delayed.
 */
export class SendService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: Ids,
    private readonly faults: FaultInjector,
    private readonly attachments: AttachmentSource,
    /** Signs unsubscribe links so they cannot be forged for another address. */
    private readonly unsubscribeKey: string,
    /** The emulator's event bus (AppDeps.events): every stored email is published on it. */
    private readonly events: EmulatorEvents,
    private readonly onDelivered: (email: Email) => void = () => {},
    /** When inbox copies arrive; without it (or with no delay) at once, with the send. */
    private readonly delivery?: LocalDelivery,
    /** Renders bodies: large ones on worker threads, so no send holds the event loop. */
    private readonly renderer: BodyRenderer = sharedRenderPool,
  ) {}

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
        rendered = await this.render(draft, recipient, origin, messageId, now);
        renderings.set(key, rendered);
      }
      return rendered;
    };
    const primary = await renderFor(draft.to[0] as Address);
    for (const recipient of recipients) await renderFor(recipient);

    const fault = this.faults.take(draft.operation);
    if (fault?.mode === 'error') throw faultError(fault);

    const delayed = this.delivery?.delayed ?? false;
    const arrivals: { mailbox: string; arrive: Arrival }[] = [];
    const sent = this.store.transaction(() => {
      const sentCopy = this.copy(
        draft,
        primary,
        { id: sentId, mailbox: draft.mailbox.address, folder: 'sent', read: true, bcc: draft.bcc },
        messageId,
        now,
        now,
      );
      const external: Address[] = [];
      const senderWorld = this.worldOf(draft.mailbox);
      for (const recipient of recipients) {
        const local = this.store.directory.getMailbox(recipient.address);
        // D-70: a tenant's world is its own; mail to a mailbox of another world leaves through
        // the outbox, as mail to another deployment would.
        if (local === undefined || this.worldOf(local) !== senderWorld) {
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
              mailbox: local.address,
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
        if (delayed) arrivals.push({ mailbox: local.address, arrive });
        else arrive(now);
      }
      const groups = personal ? external.map((r) => [r]) : external.length > 0 ? [external] : [];
      for (const group of groups) {
        const rendered = personal
          ? (renderings.get((group[0] as Address).address) as Rendered)
          : primary;
        this.store.outbox.add(
          {
            id: this.ids.prefixed('out'),
            sentEmailId: sentCopy.id,
            from: draft.mailbox.address,
            recipients: group.map((r) => r.address),
            subject: rendered.subject,
            messageId,
            createdAt: now.toISOString(),
          },
          rendered.raw,
          rendered.plain ?? '',
        );
      }
      return sentCopy;
    });

    // Queued only once the send is committed: a send that failed delivers nothing.
    // A copy whose mailbox was deleted while it was on its way is dropped (a deployment would
    // bounce it).
    for (const { mailbox, arrive } of arrivals) {
      this.delivery?.schedule((at) =>
        this.store.transaction(() => {
          if (this.store.directory.getMailbox(mailbox) !== undefined) arrive(at);
        }),
      );
    }
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

  private async render(
    draft: Draft,
    recipient: Address,
    origin: string,
    messageId: string,
    now: Date,
  ): Promise<Rendered> {
    const values: Variables = {
      ...draft.variables,
      email: recipient.address,
      unsubscribe_url: this.unsubscribeUrl(origin, recipient.address),
    };
    // Code points are at least half the code units: a subject that long once filled in is
    // refused before it is made (variables could make it gigabytes).
    if ('template' in draft.subject && renderedLength(draft.subject.template, values) > 2 * 998)
      throw subjectTooLong();
    const subject =
      'template' in draft.subject
        ? renderTemplate(draft.subject.template, values)
        : draft.subject.literal;
    if ([...subject].length > 998) throw subjectTooLong();
    // Filled on the render thread, bounded there by the message limit (the preheader is kept
    // on the email with or without an HTML part).
    const preheader: BodyJob['preheader'] =
      draft.preheader === undefined ? null : { template: draft.preheader, values };
    let markdown: BodyJob['markdown'] = null;
    let text: BodyJob['text'];
    let html: Source | null;
    switch (draft.body.kind) {
      case 'markdown':
        markdown = { template: draft.large.markdown ?? draft.body.source, values };
        text = null;
        html = null;
        break;
      case 'text':
        text = { template: draft.large.text ?? draft.body.source, values };
        html = null;
        break;
      case 'html':
        text = null;
        html = draft.large.html ?? draft.body.source; // §2.6: variables never apply to raw HTML
        break;
      case 'original':
        ({ text, html } = draft.body);
        break;
    }
    const result = await this.renderWithin(draft, {
      markdown,
      text,
      html,
      preheader,
      message: {
        from: draft.from,
        to: draft.to,
        cc: draft.cc,
        subject,
        messageId,
        inReplyTo: draft.inReplyTo,
        references: draft.references,
        date: now,
        attachments: draft.attachments,
      },
      maxBytes: MAX_MESSAGE_BYTES,
    });
    if (!result.ok) throw messageTooLarge(draft, result);
    return { subject, ...result, raw: result.raw as Buffer };
  }

  /** Renders on the renderer; a render past its budget is the body's fault (D-67). */
  private renderWithin(draft: Draft, job: BodyJob) {
    return this.renderer.render(job).catch((error: unknown) => {
      throw error instanceof RenderTimeout ? bodyTooComplex(draft, error) : error;
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

  /** D-24: a per-recipient link that suppresses the address when opened; signed, so unforgeable. */
  private unsubscribeUrl(origin: string, address: string): string {
    return `${origin}/unsubscribe/${unsubscribeToken(this.unsubscribeKey, address)}`;
  }
}

function fieldsOf(
  to: Address[],
  cc: Address[],
  bcc: Address[],
  derivedCc = 0,
): Map<string, string> {
  const fields = new Map<string, string>();
  const add = (address: string, field: string) => {
    if (!fields.has(address)) fields.set(address, field);
  };
  to.forEach((a) => add(a.address, 'to'));
  // Cc derived from the original (reply-all) has no request field; name the list.
  cc.forEach((a, i) => add(a.address, i < derivedCc ? 'cc' : `cc[${i - derivedCc}]`));
  bcc.forEach((a, i) => add(a.address, `bcc[${i}]`));
  return fields;
}

function uniqueAddresses(addresses: Address[]): Address[] {
  const seen = new Set<string>();
  return addresses.filter((a) => !seen.has(a.address) && seen.add(a.address));
}

function subjectTooLong(): ApiError {
  return new ApiError(
    'subject_too_long',
    'subject is longer than 998 characters once variables are filled in.',
    'subject',
  );
}

/** D-67: a body whose rendering ran past the render thread's budget. */
function bodyTooComplex(draft: Draft, timeout: RenderTimeout): ApiError {
  return new ApiError(
    'body_too_complex',
    `The body took longer than ${timeout.budgetMs / 1000} s to render; nothing was sent. Send a simpler or shorter body.`,
    draft.body.kind === 'original' ? undefined : draft.body.kind,
  );
}

/**
 * D-42: names what to change. The files (`attachmentIds`) when the body alone would fit, else
 * the body's field (`markdown`, `html`, `text`), or no field for a forwarded original's body.
 */
function messageTooLarge(
  draft: Draft,
  result: { bytes: number; atLeast: boolean; bodyAlone: boolean; preheaderAlone?: true },
): ApiError {
  const size = `${result.atLeast ? 'at least ' : ''}${result.bytes} bytes`;
  const limit = `the platform accepts at most ${MAX_MESSAGE_BYTES} (5 MiB)`;
  if (result.preheaderAlone === true) {
    return new ApiError(
      'message_too_large',
      `The preheader, with its variables filled in, is ${size}; ${limit} for the whole message. Shorten the preheader.`,
      'preheader',
    );
  }
  if (draft.attachments.length > 0 && !result.bodyAlone) {
    return new ApiError(
      'message_too_large',
      `The encoded message is ${size}; ${limit}. Put large files' url in the body instead.`,
      'attachmentIds',
    );
  }
  const field = draft.body.kind === 'original' ? undefined : draft.body.kind;
  return new ApiError(
    'message_too_large',
    `The encoded message is ${size}; ${limit}. Shorten the body.`,
    field,
  );
}
