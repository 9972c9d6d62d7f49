/**
 * D-34, D-35, D-30: when a failed delivery is tried again, when a webhook is paused, how long
 * an attempt may take. Pure numbers, so the schedule is one table everyone can read.
 */

/** Delays before retries 1..6, each counted from the previous attempt: 7 attempts in all. */
export const RETRY_DELAYS_MS = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Consecutive failed attempts, across deliveries, after which a webhook is paused. */
export const PAUSE_AFTER_CONSECUTIVE_FAILURES = 15;

/** The whole exchange, connect to last byte. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

/** When the next attempt is due after `attempts` failed ones, or null when there is none. */
export function nextAttemptAt(attempts: number, lastAttemptAt: Date): Date | null {
  // After the 7th attempt (MAX_ATTEMPTS) there is no delay left in the table.
  const delay = RETRY_DELAYS_MS[attempts - 1];
  return delay === undefined ? null : new Date(lastAttemptAt.getTime() + delay);
}

/** Whether this many consecutive failures pause the webhook (§3.2). */
export function shouldPause(consecutiveFailures: number): boolean {
  return consecutiveFailures >= PAUSE_AFTER_CONSECUTIVE_FAILURES;
}
