/**
 * A check's time budget (issue 28 item 4): active time, not time spent waiting on the target's
 * pace (client/waiting.ts); a check that spends it is reported as not finished, failing no rule.
 */
import { abandonable } from '../contract/charge.ts';
import { waitedSoFar } from '../client/waiting.ts';
import { readRunConfig } from '../run/config.ts';

/**
 * A check that used up its time budget: it fails no rule (running out of time is not a broken
 * rule, issue 28 item 4) and is reported as not finished, with how far it got.
 */
export class NotFinished extends Error {
  override name = 'NotFinished';
  constructor(
    readonly activeMs: number,
    readonly waitedMs: number,
  ) {
    super('not finished');
  }
}

/** Active time, in ms, a check may use before vitest's backstop: against a live target, hours. */
export function backstopMs(budgetMs: number): number {
  return readRunConfig().target.kind === 'live' ? 6 * 3_600_000 : budgetMs + 120_000;
}

/**
 * Ends a check that has used `budgetMs` of active time: wall time less what it spent waiting
 * on the target's pace (client/waiting.ts), so the budget follows the target's delivery time.
 */
export function startWatchdog(budgetMs: number) {
  const started = performance.now();
  let stop = () => {};
  const expired = new Promise<never>((_, reject) => {
    const timer = setInterval(() => {
      const waited = waitedSoFar();
      const active = performance.now() - started - waited;
      if (active > budgetMs) {
        clearInterval(timer);
        reject(new NotFinished(active, waited));
      }
    }, 250);
    stop = () => clearInterval(timer);
  });
  expired.catch(() => undefined);
  return {
    /**
     * The check's outcome, or NotFinished once the budget is spent; the body, which cannot be
     * cancelled, is then abandoned: its next assertion stops it.
     */
    race<T>(body: () => Promise<T>): Promise<T> {
      const { running, abandon } = abandonable(body);
      running.catch(() => undefined);
      expired.catch(abandon);
      return Promise.race([running, expired]);
    },
    stop: () => stop(),
  };
}

/** What a not-finished check reports: its time, its work, and the rules it had reached. */
export function notFinishedReason(
  cause: NotFinished,
  counts: { requests: number; cases: number },
  reached: ReadonlySet<string>,
  ruleIds: readonly string[],
): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const got = ruleIds.filter((id) => reached.has(id));
  const not = ruleIds.filter((id) => !reached.has(id));
  return [
    `not finished: used its ${seconds(cause.activeMs)} of active time (${seconds(cause.waitedMs)} more waiting for mail and the rate limit, not counted)`,
    `after ${counts.requests} requests and ${counts.cases} generated cases`,
    `rules reached: ${got.length === 0 ? 'none' : got.join(' ')}`,
    `not reached: ${not.length === 0 ? 'none' : not.join(' ')}`,
  ].join('; ');
}
