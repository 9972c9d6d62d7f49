import type { EmulatorEvent, EmulatorEvents } from '../events.ts';

/** One attempt as it was published: outcome and the bytes exchanged. */
export type LoggedAttempt = Extract<EmulatorEvent, { type: 'webhook.attempt' }>;

/** How many attempts' exchanges are kept; the oldest go first. */
const CAPACITY = 1000;

/**
 * The signed request and the receiver's answer of recent webhook attempts, by delivery and
 * attempt number. The store keeps each attempt's status, error and latency (what a restart must
 * not lose); the bytes exchanged are only for looking at, so they stay in memory.
 */
export class ExchangeLog {
  private readonly entries = new Map<string, LoggedAttempt>();

  constructor(events: EmulatorEvents) {
    events.subscribe((event) => {
      if (event.type !== 'webhook.attempt') return;
      this.entries.set(keyOf(event.deliveryId, event.number), event);
      if (this.entries.size > CAPACITY) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    });
  }

  get(deliveryId: string, attempt: number): LoggedAttempt | undefined {
    return this.entries.get(keyOf(deliveryId, attempt));
  }
}

const keyOf = (deliveryId: string, attempt: number) => `${deliveryId}#${attempt}`;
