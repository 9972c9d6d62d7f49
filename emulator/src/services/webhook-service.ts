import { ApiError, quoteForMessage } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Ids } from '../ids.ts';
import { SCOPES, type Scope } from '../domain/types.ts';
import type { Store } from '../store/store.ts';
import type { Attempt, Webhook } from '../store/webhook-store.ts';
import type { AttemptOutcome, WebhookDispatcher } from '../webhook-delivery/dispatcher.ts';
import { checkWebhookUrl, UnsafeWebhookTarget } from '../webhook-delivery/endpoint-guard.ts';
import { requireText } from './directory-service.ts';

/** A webhook and one attempt of a delivery, as the dashboard shows them. */
export type { Attempt, Webhook };

export interface NewWebhook {
  ownerId: string;
  url: string;
  scope: Scope;
  domain?: string | null;
  mailboxes?: string[];
  /** A fixed secret (fixtures); random when absent. */
  secret?: string;
  id?: string;
}

const SECRET_PATTERN = /^whsec_[A-Za-z0-9]{24,64}$/;

/**
 * The dashboard's webhooks (§2.5, §3.2): endpoint checked to be public when created (and again
 * at every delivery), scope like a key's, a `whsec_` secret shown once, re-enable, test.
 */
export class WebhookService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: Ids,
    private readonly dispatcher: WebhookDispatcher,
    private readonly allowLoopback: boolean,
  ) {}

  create(input: NewWebhook): { webhook: Webhook; secret: string } {
    if (this.store.directory.getOwner(input.ownerId) === undefined) {
      throw new ApiError(
        'owner_not_found',
        `No owner ${quoteForMessage(input.ownerId)}.`,
        'ownerId',
      );
    }
    const url = requireText(input.url, 'url', 2048);
    try {
      // `{origin}` stands for this emulator's own origin (the demo sink), known only once it
      // listens; the rest of such a URL is checked here, the address at every delivery, where
      // a loopback origin needs --allow-loopback-webhooks like any other loopback target.
      const checkable = url.startsWith('{origin}/')
        ? url.replace('{origin}', 'https://origin.mailtwin.test')
        : url;
      checkWebhookUrl(checkable, { allowLoopback: this.allowLoopback });
    } catch (error) {
      if (error instanceof UnsafeWebhookTarget)
        throw new ApiError('invalid_webhook_url', error.message, 'url');
      throw error;
    }
    if (!(SCOPES as readonly string[]).includes(input.scope)) {
      throw new ApiError('invalid_field', `scope must be one of ${SCOPES.join(', ')}.`, 'scope');
    }
    const domain =
      input.scope === 'one-domain'
        ? requireText(input.domain ?? '', 'domain', 252).toLowerCase()
        : null;
    if (input.scope !== 'one-domain' && input.domain != null)
      throw new ApiError('invalid_field', 'domain applies only to one-domain webhooks.', 'domain');
    let mailboxes: string[] = [];
    if (input.scope === 'selected-mailbox') {
      if (!Array.isArray(input.mailboxes) || input.mailboxes.length === 0) {
        throw new ApiError(
          'missing_field',
          'a selected-mailbox webhook lists its mailboxes.',
          'mailboxes',
        );
      }
      mailboxes = [...new Set(input.mailboxes.map((m) => m.toLowerCase()))];
    } else if (input.mailboxes !== undefined && input.mailboxes.length > 0) {
      throw new ApiError(
        'invalid_field',
        'mailboxes applies only to selected-mailbox webhooks.',
        'mailboxes',
      );
    }
    const secret = input.secret ?? `whsec_${this.ids.secret(32)}`;
    if (!SECRET_PATTERN.test(secret))
      throw new ApiError(
        'invalid_field',
        'secret must be whsec_ and 24 to 64 letters or digits.',
        'secret',
      );
    const id = input.id ?? this.ids.prefixed('wh');
    if (this.store.webhooks.get(id))
      throw new ApiError('already_exists', `Webhook ${quoteForMessage(id)} already exists.`, 'id');
    const webhook: Webhook = {
      id,
      ownerId: input.ownerId,
      url,
      scope: input.scope,
      domain,
      mailboxes,
      status: 'active',
      consecutiveFailures: 0,
      createdAt: this.clock.now().toISOString(),
    };
    this.store.webhooks.create(webhook, secret);
    return { webhook, secret };
  }

  get(id: string): Webhook {
    const webhook = this.store.webhooks.get(id);
    if (webhook === undefined)
      throw new ApiError('webhook_not_found', `No webhook ${quoteForMessage(id)}.`, 'webhookId');
    return webhook;
  }

  list(): Webhook[] {
    return this.store.webhooks.list();
  }

  delete(id: string): void {
    if (!this.store.webhooks.delete(id))
      throw new ApiError('webhook_not_found', `No webhook ${quoteForMessage(id)}.`, 'webhookId');
  }

  /** §3.2: the owner re-enables a paused webhook; its failure count starts again. */
  enable(id: string): Webhook {
    this.get(id);
    this.store.webhooks.setStatus(id, 'active', 0);
    return this.get(id);
  }

  test(id: string): Promise<AttemptOutcome> {
    return this.dispatcher.sendTest(this.get(id));
  }

  deliveries(id: string, limit = 50) {
    this.get(id);
    return this.store.webhooks.recentDeliveries(id, limit);
  }
}
