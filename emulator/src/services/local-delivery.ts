import type { Clock } from '../clock.ts';

/** Stores one copy of sent mail in a mailbox of this deployment, arriving at `at`. */
export type Arrival = (at: Date) => void;

interface Pending {
  /** When it is due, in milliseconds of the emulator's clock. */
  dueMs: number;
  arrive: Arrival;
}

/** The longest delay `--delivery-delay-ms` accepts: one hour. */
export const MAX_DELIVERY_DELAY_MS = 3_600_000;

/**
 * When mail sent to a mailbox of this deployment (§4.3, §4.7, §4.8) reaches it, and so when its
 * `email.received` webhooks fire (§6.1). The service document promises no delivery time; with
 * `mailtwin serve --delivery-delay-ms <n>` every such copy arrives n ms after the send answers,
 * so a client rehearses polling. With 0 (the default) nothing is delayed: the sender delivers in
 * its own transaction, as `delayed` tells it.
 *
 * The delay is counted on the emulator's clock: a real timer wakes the queue when the next copy
 * is due, and moving the clock (the control plane's `/clock`, then `runDue`) delivers what fell
 * due without waiting. Pending copies live only in memory: when the process stops first, they
 * are lost.
 */
export class LocalDelivery {
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    readonly delayMs: number,
    private readonly logError: (error: unknown) => void,
  ) {
    if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELIVERY_DELAY_MS) {
      throw new RangeError(`delivery delay must be 0 to ${MAX_DELIVERY_DELAY_MS} ms`);
    }
  }

  /** Whether copies wait; when not, the sender stores them at once in its own transaction. */
  get delayed(): boolean {
    return this.delayMs > 0;
  }

  /** How many copies are on their way. */
  get size(): number {
    return this.pending.length;
  }

  /** Queues a copy, due `delayMs` from now on the emulator's clock; dropped once stopped. */
  schedule(arrive: Arrival): void {
    if (this.stopped) return;
    this.pending.push({ dueMs: this.clock.now().getTime() + this.delayMs, arrive });
    this.arm();
  }

  /**
   * Delivers every copy due by now, in the order they were sent, each at the current instant
   * (D-17: `receivedAt` is when the copy reached the mailbox, never in the future, so a
   * listing's cursor never skips it). One that fails is logged; the others still arrive.
   */
  runDue(): number {
    const now = this.clock.now();
    const due = this.pending.filter((p) => p.dueMs <= now.getTime());
    this.pending = this.pending.filter((p) => p.dueMs > now.getTime());
    for (const { arrive } of due) {
      try {
        arrive(now);
      } catch (error) {
        this.logError(error);
      }
    }
    this.arm();
    return due.length;
  }

  /** Forgets what is on its way (the control plane's reset empties the emulator). */
  clear(): void {
    this.pending = [];
    this.arm();
  }

  /** At shutdown: cancels the timer and drops what is on its way, so the process can exit. */
  stop(): void {
    this.stopped = true;
    this.clear();
  }

  /** One timer, for the copy due first; it never keeps the process alive by itself. */
  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || this.pending.length === 0) return;
    const next = this.pending.reduce((min, p) => Math.min(min, p.dueMs), Infinity);
    const wait = Math.max(0, next - this.clock.now().getTime());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.runDue();
    }, wait);
    this.timer.unref();
  }
}
