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

/**
 * Set to `off`, no check runs out of its time budget: each runs to its end, bounded by its
 * requests' and deliveries' own time-outs (--request-timeout, --delivery-timeout) and vitest's
 * backstop of hours. Active time is wall time, so a loaded machine spends a budget that a
 * quiet one does not: a run whose verdict must not depend on the machine's load (the API-world
 * unit test, which bounds the whole run itself) turns the budgets off rather than lengthen them.
 */
export const BUDGET_ENV = 'MAILTWIN_CONFORMANCE_BUDGET';

/** Whether checks have time budgets in this process ({@link BUDGET_ENV}). */
export function budgetsOn(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[BUDGET_ENV] !== 'off';
}

/** Active time, in ms, a check may use before vitest's backstop: against a live target, hours. */
export function backstopMs(budgetMs: number): number {
  return readRunConfig().target.kind === 'live' || !budgetsOn()
    ? 6 * 3_600_000
    : budgetMs + 120_000;
}

/**
 * Ends a check that has used `budgetMs` of active time: wall time less what it spent waiting
 * on the target's pace (client/waiting.ts), so the budget follows the target's delivery time.
 * With budgets off ({@link BUDGET_ENV}) it never ends one.
 */
export function startWatchdog(budgetMs: number, env: NodeJS.ProcessEnv = process.env) {
  const started = performance.now();
  let stop = () => {};
  const expired = new Promise<never>((_, reject) => {
    if (!budgetsOn(env)) return;
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
