import { verifyWebhook } from 'mailtwin/webhooks';
import type { Store } from '../store/store.ts';
import type { Clock } from '../clock.ts';

/** One delivery the sink received, and whether its signature held. */
export interface SinkRecord {
  receivedAt: string;
  webhookId: string | null;
  event: string | null;
  verified: boolean;
  /** Why verification failed, when it did. */
  error: string | null;
  emailId: string | null;
  subject: string | null;
  bytes: number;
}

const KEEP = 200;

/**
 * A receiver on the emulator itself (`POST /_mailtwin/sink`), which the demo webhook targets so
 * `npm start` shows a whole signed delivery offline. It verifies each delivery exactly as a
 * client should (mailtwin/webhooks, with the webhook's secret) and keeps the last 200.
 */
export class WebhookSink {
  private readonly records: SinkRecord[] = [];

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Verifies and keeps one delivery; unverified ones are answered 401 (§6.3 rule 4). */
  receive(headers: Headers, rawBody: Uint8Array): SinkRecord {
    const webhookId = headers.get('x-service-webhook-id');
    const secret = webhookId === null ? undefined : this.store.webhooks.secretOf(webhookId);
    const record: SinkRecord = {
      receivedAt: this.clock.now().toISOString(),
      webhookId,
      event: headers.get('x-service-event'),
      verified: false,
      error: null,
      emailId: null,
      subject: null,
      bytes: rawBody.length,
    };
    try {
      if (secret === undefined) throw new Error('no webhook with this X-Service-Webhook-Id');
      const verified = verifyWebhook({ secret, headers, rawBody, now: this.clock.now() });
      const data = (verified.payload as { data?: { id?: unknown; subject?: unknown } }).data;
      record.verified = true;
      record.emailId = typeof data?.id === 'string' ? data.id : null;
      record.subject = typeof data?.subject === 'string' ? data.subject : null;
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
    }
    this.records.unshift(record);
    this.records.length = Math.min(this.records.length, KEEP);
    return record;
  }

  /** Newest first. */
  list(): SinkRecord[] {
    return [...this.records];
  }

  clear(): void {
    this.records.length = 0;
  }
}
