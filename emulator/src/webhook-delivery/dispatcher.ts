import type { Clock } from '../clock.ts';
import type { Ids } from '../ids.ts';
import { mailboxesKeyMayTouch } from '../domain/access.ts';
import { emailDetail } from '../domain/email-view.ts';
import type { Email } from '../domain/types.ts';
import { nextAttemptAt, shouldPause } from '../domain/webhook-policy.ts';
import type { Store } from '../store/store.ts';
import type { Delivery, DeliveryData, Webhook } from '../store/webhook-store.ts';
import type { Connector } from './connector.ts';
import { checkWebhookUrl, resolvePublicAddresses, type Resolver } from './endpoint-guard.ts';
import { signatureFor } from './signature.ts';
import type { EmulatorEvents, WebhookExchange } from '../events.ts';
import type { Chaos } from '../chaos/chaos.ts';
import { injectedDelivery } from '../chaos/webhook.ts';

export interface DispatcherOptions {
  allowLoopback: boolean;
  timeoutMs: number;
  /** This instance's own origin once it listens, for `{origin}` in webhook URLs (the demo sink). */
  selfOrigin: () => string | undefined;
  logError: (error: unknown) => void;
  /**
   * The `data` of email.received in a deployment's names (§6.2 "Field names of data beyond id
   * and mailbox: not shown"), applied before signing so the signature covers the bytes sent
   * (§6.3); absent, the stored email detail is sent as is (D-37).
   */
  renderData?: (data: unknown) => unknown;
  /** Chaos rules for webhook deliveries: added latency, failed or timed-out attempts. */
  chaos?: Chaos;
  /** The emulator's event bus (AppDeps.events): each attempt is published on it. */
  events: EmulatorEvents;
}

/** The outcome of one attempt, as the dashboard shows it. */
export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

const BATCH = 32;

/** The data of a delivery recorded as paused (D-35): never sent, so none is kept. */
const NO_DATA = new Uint8Array(0);

/**
 * Signed webhook delivery (§6): one delivery per new email and webhook whose scope authorizes
 * the mailbox, attempted at once and retried on the schedule of D-34; a webhook that keeps
 * failing is paused (§3.2, D-35). Deliveries are rows, so with --db they survive a restart.
 * Time is the injected clock: moving it runs retries without waiting.
 */
export class WebhookDispatcher {
  private chain: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** A run of due deliveries is asked for in this turn already (`enqueue`). */
  private runScheduled = false;
  /** Per mailbox, the webhooks that hear of its mail, while Store.webhookAudience is this mark. */
  private readonly audience = new Map<string, Pick<Webhook, 'id' | 'status'>[]>();
  private audienceMark: number | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: Ids,
    private readonly connector: Connector,
    private readonly resolver: Resolver,
    private readonly options: DispatcherOptions,
  ) {}

  /**
   * §6.1: records a delivery for each webhook that may see this mailbox; runs in the caller's
   * transaction. `detail`, when given, makes the bytes of `JSON.stringify(emailDetail(email))`,
   * or names them written apart already (WebhookStore.stagePayload).
   */
  enqueue(email: Email, detail?: () => DeliveryData): void {
    const now = this.clock.now().toISOString();
    // The detail is encoded once for every webhook that hears of it (megabytes for a large body),
    // or given as bytes made in steps by the deliverer (services/detail-json.ts, issue 27 item 1);
    // large data is written once for all of them (WebhookStore.payloadOf).
    let data: DeliveryData | undefined;
    for (const webhook of this.hearing(email.mailbox)) {
      const paused = webhook.status === 'paused';
      // D-35: a delivery recorded as paused is never sent, nor replayed once its webhook is
      // re-enabled, so it keeps no data (issue 31 item 2: the detail's JSON, ~5 KB a message, was
      // made and written for every message a paused webhook heard of).
      if (paused) {
        this.store.webhooks.addDelivery(
          {
            id: this.ids.prefixed('dlv'),
            webhookId: webhook.id,
            event: 'email.received',
            emailId: email.id,
            status: 'paused',
            attempts: 0,
            nextAttemptAt: null,
            createdAt: now,
          },
          NO_DATA,
        );
        continue;
      }
      data ??= this.store.webhooks.payloadOf(
        detail?.() ?? Buffer.from(JSON.stringify(emailDetail(email)), 'utf8'),
      );
      this.store.webhooks.addDelivery(
        {
          id: this.ids.prefixed('dlv'),
          webhookId: webhook.id,
          event: 'email.received',
          emailId: email.id,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          createdAt: now,
        },
        data,
      );
    }
    // No run when nothing is pending (the webhooks that heard of it are paused, or none did):
    // it would find nothing due.
    if (this.runScheduled || !this.store.webhooks.mayHavePending()) return;
    this.runScheduled = true;
    setImmediate(() => {
      this.runScheduled = false;
      void this.runDue();
    });
  }

  /**
   * The webhooks that hear of `mailbox`'s mail, in the order of `WebhookStore.list`: decided
   * once and kept for the messages that follow, while nothing that decides it is written
   * (Store.webhookAudience), where every message listed the webhooks and read each one's owner
   * and grants (issue 31 item 2).
   */
  private hearing(mailbox: string): Pick<Webhook, 'id' | 'status'>[] {
    const mark = this.store.webhookAudience.current();
    if (mark !== this.audienceMark) {
      this.audience.clear();
      this.audienceMark = mark;
    }
    let webhooks = this.audience.get(mailbox);
    if (webhooks === undefined) {
      webhooks = this.store.webhooks
        .list()
        .filter((webhook) => this.authorizes(webhook, mailbox))
        .map(({ id, status }) => ({ id, status }));
      this.audience.set(mailbox, webhooks);
    }
    return webhooks;
  }

  /**
   * Attempts every delivery that is due now; resolves when they have all been tried. Runs are
   * serialized: a call during a run queues one more run after it (which sees everything due by
   * then), and calls while that one waits share it.
   */
  runDue(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    const run = this.chain.then(async () => {
      this.queued = undefined;
      for (;;) {
        if (!this.store.db.open) return; // stopped while this run waited
        const due = this.store.webhooks.due(this.clock.now().toISOString(), BATCH);
        if (due.length === 0) return;
        await Promise.all(due.map((delivery) => this.attempt(delivery)));
      }
    });
    const settled = run.catch((error: unknown) => this.options.logError(error));
    this.queued = settled;
    this.chain = settled;
    return settled;
  }

  /** Polls for due retries once a second of real time; `stop` ends it. */
  start(): void {
    this.timer ??= setInterval(() => void this.runDue(), 1000);
    this.timer.unref();
    void this.runDue();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** §6.1: the dashboard's Send test; sent even to a paused webhook, never retried. */
  async sendTest(webhook: Webhook): Promise<AttemptOutcome> {
    const at = this.clock.now();
    const data = { test: true, message: 'Test delivery from the mailtwin control plane.' };
    const dataJson = Buffer.from(JSON.stringify(data), 'utf8');
    const { outcome, exchange } = await this.post(webhook, 'webhook.test', [dataJson], at);
    const id = this.ids.prefixed('dlv');
    const status = outcome.ok ? 'succeeded' : 'failed';
    // The attempt is itemized like any delivery's (§6.4: failures are visible), so a test that
    // the endpoint answered 401 shows that answer in the deliveries, not `attempts: []`.
    this.store.transaction(() => {
      this.store.webhooks.addDelivery(
        {
          id,
          webhookId: webhook.id,
          event: 'webhook.test',
          emailId: null,
          status,
          attempts: 1,
          nextAttemptAt: null,
          createdAt: at.toISOString(),
        },
        dataJson,
      );
      this.store.webhooks.recordAttempt(
        id,
        {
          number: 1,
          at: at.toISOString(),
          statusCode: outcome.statusCode,
          error: outcome.error,
          latencyMs: outcome.latencyMs,
        },
        { status, nextAttemptAt: null },
      );
    });
    this.publishAttempt(webhook.id, id, 'webhook.test', 1, outcome, exchange);
    return outcome;
  }

  /** Tells the dashboard and the request log about one attempt (events.ts); never stored. */
  private publishAttempt(
    webhookId: string,
    deliveryId: string,
    event: string,
    number: number,
    outcome: AttemptOutcome,
    exchange: WebhookExchange,
  ): void {
    this.options.events.publish({
      type: 'webhook.attempt',
      webhookId,
      deliveryId,
      event,
      number,
      ...outcome,
      exchange,
    });
  }

  /** §2.5: webhook access follows the owner's current grants, narrowed by the webhook's scope. */
  private authorizes(webhook: Webhook, mailbox: string): boolean {
    const owner = this.store.directory.getOwner(webhook.ownerId);
    if (owner === undefined || owner.disabled) return false;
    return mailboxesKeyMayTouch(webhook, this.store.directory.grantedMailboxes(owner.id)).has(
      mailbox,
    );
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const webhook = this.store.webhooks.get(delivery.webhookId);
    if (webhook === undefined) return;
    if (webhook.status === 'paused') {
      this.store.webhooks.pausePending(webhook.id);
      return;
    }
    const data = this.store.webhooks.dataPartsOf(delivery.id);
    if (data === undefined) return; // deleted (with its webhook's tenant) since it was listed
    const at = this.clock.now();
    const { outcome, exchange } = await this.post(webhook, delivery.event, data, at);
    const number = delivery.attempts + 1;
    const attempt = {
      number,
      at: at.toISOString(),
      statusCode: outcome.statusCode,
      error: outcome.error,
      latencyMs: outcome.latencyMs,
    };
    const current = this.store.webhooks.get(webhook.id);
    if (current === undefined) return;
    if (outcome.ok) {
      this.store.transaction(() => {
        this.store.webhooks.recordAttempt(delivery.id, attempt, {
          status: 'succeeded',
          nextAttemptAt: null,
        });
        this.store.webhooks.setConsecutiveFailures(webhook.id, 0);
      });
      this.publishAttempt(webhook.id, delivery.id, delivery.event, number, outcome, exchange);
      return;
    }
    const failures = current.consecutiveFailures + 1;
    const next = nextAttemptAt(number, at);
    this.store.transaction(() => {
      if (shouldPause(failures)) {
        this.store.webhooks.recordAttempt(delivery.id, attempt, {
          status: next === null ? 'failed' : 'paused',
          nextAttemptAt: null,
        });
        this.store.webhooks.setStatus(webhook.id, 'paused', failures);
        this.store.webhooks.pausePending(webhook.id);
      } else {
        this.store.webhooks.recordAttempt(delivery.id, attempt, {
          status: next === null ? 'failed' : 'pending',
          nextAttemptAt: next?.toISOString() ?? null,
        });
        this.store.webhooks.setConsecutiveFailures(webhook.id, failures);
      }
    });
    this.publishAttempt(webhook.id, delivery.id, delivery.event, number, outcome, exchange);
  }

  /**
   * One signed POST (§6.2, §6.3): body and headers built for this attempt's moment. `data` is
   * the JSON bytes of the event's data, in pieces (WebhookStore.dataPartsOf), placed into the
   * body as they are: the body is the bytes of `JSON.stringify({ event, webhookId, timestamp,
   * data })`, without parsing and encoding a large email's detail again for every attempt, or
   * copying it but once (issue 27 item 1).
   */
  private async post(
    webhook: Webhook,
    event: string,
    data: Uint8Array[],
    at: Date,
  ): Promise<{ outcome: AttemptOutcome; exchange: WebhookExchange }> {
    const timestamp = at.toISOString();
    const render = event === 'email.received' ? this.options.renderData : undefined;
    const sent =
      render === undefined
        ? data
        : [
            Buffer.from(
              JSON.stringify(render(JSON.parse(decoder.decode(Buffer.concat(data))))),
              'utf8',
            ),
          ];
    const body = jsonWithData({ event, webhookId: webhook.id, timestamp }, sent);
    const secret = this.store.webhooks.secretOf(webhook.id) ?? '';
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'mailtwin-webhooks/1',
      'X-Service-Event': event,
      'X-Service-Webhook-Id': webhook.id,
      'X-Service-Timestamp': timestamp,
      'X-Service-Signature': signatureFor(secret, timestamp, body),
    };
    const origin = this.options.selfOrigin() ?? 'http://127.0.0.1';
    const url = webhook.url.replace('{origin}', origin);
    let shown: string | undefined;
    // Decoded only if the dashboard shows it.
    const request = {
      url,
      headers,
      get body() {
        return (shown ??= decoder.decode(body));
      },
    };
    const exchange: WebhookExchange = { request, response: null };
    // A chaos rule acts before the endpoint is reached; its latency counts in the attempt's.
    const rule = this.options.chaos?.covers('webhook')
      ? this.options.chaos.decide({ surface: 'webhook', webhookId: webhook.id, event })
      : undefined;
    if (rule !== undefined && rule.latencyMs > 0) await this.options.chaos?.sleep(rule.latencyMs);
    const injectedMs = rule?.latencyMs ?? 0;
    const started = performance.now();
    const latency = () => injectedMs + Math.round(performance.now() - started);
    if (rule?.delivery !== undefined) {
      const injected = injectedDelivery(rule, this.options.timeoutMs);
      if (injected.statusCode !== null)
        exchange.response = { status: injected.statusCode, body: null };
      return { outcome: { ok: false, ...injected, latencyMs: latency() }, exchange };
    }
    try {
      const target = checkWebhookUrl(url, {
        allowLoopback: this.options.allowLoopback,
      });
      const [address] = await resolvePublicAddresses(target, this.resolver, {
        allowLoopback: this.options.allowLoopback,
      });
      const response = await this.connector({
        url: target.url,
        address: address as string,
        headers,
        body,
        timeoutMs: this.options.timeoutMs,
      });
      const ok = response.status >= 200 && response.status < 300;
      const error = ok
        ? null
        : response.status >= 300 && response.status < 400
          ? `redirect ${response.status} not followed`
          : `answered ${response.status}`;
      exchange.response = { status: response.status, body: response.body ?? null };
      return {
        outcome: { ok, statusCode: response.status, error, latencyMs: latency() },
        exchange,
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return {
        outcome: { ok: false, statusCode: null, error: message, latencyMs: latency() },
        exchange,
      };
    }
  }
}

const decoder = new TextDecoder();

/**
 * The bytes of `JSON.stringify({ ...fields, data })` when `data` is the bytes of
 * `JSON.stringify` of a value, in pieces: `data` is copied in, once, never parsed.
 */
export function jsonWithData(fields: Record<string, string>, data: Uint8Array[]): Buffer {
  const head = JSON.stringify(fields);
  return Buffer.concat([Buffer.from(`${head.slice(0, -1)},"data":`, 'utf8'), ...data, CLOSE]);
}

const CLOSE = Buffer.from('}');
