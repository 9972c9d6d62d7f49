/**
 * A check's property (fast-check): run with decided departures recorded, re-run once with them
 * thrown when one departed; a refusal of the suite or a hang ends it, and a shrunk failure is
 * re-checked and keeps the rule it was charged to.
 */
import fc from 'fast-check';
import {
  ChargedFailure,
  chargedRule,
  recordDecided,
  recordingDecided,
  withoutRecording,
} from '../contract/charge.ts';
import { ruleById } from '../contract/rules.ts';
import { NoAnswer } from '../client/answer-errors.ts';
import type { Exchange } from '../client/exchange.ts';
import { SafetyRefusal } from '../client/safety.ts';
import { maxConcurrentChecks } from '../run/config.ts';
import { expectSentSomething } from './nothing-sent.ts';

/**
 * Runs a property twice at most. First with departures from decided rules recorded, so every
 * case reaches its documented assertions (a documented failure is shrunk and thrown as
 * before); then, only if a case departed, once more with them thrown, so the departure gets a
 * shrunk counterexample of its own, which is recorded for the check and the check goes on.
 */
export async function checkProperty<T>(
  log: Exchange[],
  counts: { requests: number; cases: number },
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  options: PropertyOptions = {},
): Promise<void> {
  let departed = false;
  // MAILTWIN_CONFORMANCE_CONCURRENCY bounds a check's cases as it bounds checks: 1 sends one
  // request at a time (a target that drops a request on a connection idle too long needs it).
  const lanes = Math.min(options.concurrency ?? 1, maxConcurrentChecks());
  const run = lanes > 1 ? runSideBySide(lanes) : runProperty;
  await run(log, counts, arbitrary, async (value) => {
    const { outcome, decided } = await recordingDecided(() => predicate(value));
    if (decided.length > 0) departed = true;
    if (outcome.status === 'fulfilled') return;
    const thrown: unknown = outcome.reason;
    // An error after a departure is the departure's consequence, not a finding of its own.
    const charged = chargedRule(thrown);
    if (decided.length > 0 && (charged === undefined || ruleById(charged)?.source === 'decided'))
      return;
    throw thrown;
  });
  if (!departed) return;
  try {
    await withoutRecording(() => run(log, counts, arbitrary, predicate));
  } catch (error) {
    if (error instanceof ChargedFailure && recordDecided(error)) return;
    throw error;
  }
}

/** How a check runs its property. */
export interface PropertyOptions {
  /**
   * Cases run at once (default 1, one after the other). Only for cases that cannot see each
   * other (each tags what it makes and reads only that): a case that waits for mail then waits
   * beside the others instead of in turn.
   */
  concurrency?: number;
}

/**
 * Runs the run's cases `concurrency` at a time, then, only if one failed, fast-check itself
 * one case at a time from the first that failed: it runs again alone and is shrunk as before
 * (and should it pass alone, the cases after it run in turn), so the verdict is the one the
 * cases give one after the other. The cases are those fast-check generates for the run's seed
 * (`fc.sample` draws the same values as `fc.check`, in the same order), so the seed replays
 * the run and a failure's report (seed, path, counterexample) is the one a run without
 * concurrency prints.
 */
function runSideBySide(concurrency: number) {
  return async function <T>(
    log: Exchange[],
    counts: { requests: number; cases: number },
    arbitrary: fc.Arbitrary<T>,
    predicate: (value: T) => Promise<void>,
  ): Promise<void> {
    const { seed, numRuns = 100 } = fc.readConfigureGlobal();
    const values = fc.sample(arbitrary, { ...(seed === undefined ? {} : { seed }), numRuns });
    const sentBefore = counts.requests;
    let next = 0;
    let firstFailed = Number.POSITIVE_INFINITY;
    let refusal: unknown;
    const lane = async () => {
      // No case after a failing one starts: the ones before it still finish, to find the first.
      while (next < values.length && next < firstFailed && refusal === undefined) {
        const index = next++;
        try {
          await predicate(values[index]!);
        } catch (error) {
          if (uncharged(error) instanceof SafetyRefusal) refusal = error;
          firstFailed = Math.min(firstFailed, index);
        }
      }
    };
    log.length = 0;
    await Promise.all(Array.from({ length: Math.min(concurrency, values.length) }, lane));
    if (refusal !== undefined) throw refusal;
    if (firstFailed === Number.POSITIVE_INFINITY) {
      counts.cases += values.length;
      expectSentSomething(
        counts.requests - sentBefore,
        `a property of ${values.length} generated case(s)`,
      );
      return;
    }
    // One at a time from here, as fast-check alone runs it: the cases before the first that
    // failed passed already and are not sent again; that one, and any after it should it pass
    // alone, run and shrink as they always do.
    await runProperty(log, counts, arbitrary, predicate, firstFailed);
  };
}

async function runProperty<T>(
  log: Exchange[],
  counts: { requests: number; cases: number },
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  passedAlready = 0,
): Promise<void> {
  // A refusal of the suite (safety.ts) is not a counterexample: stop trying cases and skip.
  let refusal: unknown;
  // A request that got no answer is the finding itself. Shrinking would wait the whole
  // --request-timeout again for every smaller case that hangs, so every later case passes
  // untried: fast-check then keeps the case that hung, and its exchanges stay in the log.
  let hang: { error: NoAnswer; value: T } | undefined;
  let hangCharge: string | undefined;
  const sentBefore = counts.requests;
  let calls = 0;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      if (calls++ < passedAlready) return;
      if (refusal !== undefined || hang !== undefined) return;
      log.length = 0; // keep only the exchanges of the case being tried
      try {
        await predicate(value);
      } catch (error) {
        const cause = uncharged(error);
        if (cause instanceof SafetyRefusal) refusal = error;
        else if (cause instanceof NoAnswer) {
          hang = { error: cause, value };
          hangCharge = chargedRule(error);
          throw error;
        } else throw error;
      }
    }),
  );
  counts.cases += details.numRuns;
  if (refusal !== undefined) throw refusal;
  if (hang !== undefined) {
    throw chargedAs(
      hangCharge,
      new Error(
        `${hang.error.message}\n\nThe case that hung (not shrunk, not re-run: each try would wait the whole timeout; replay with seed ${details.seed}):\n${fc.stringify(hang.value)}`,
      ),
    );
  }
  if (!details.failed) {
    expectSentSomething(
      counts.requests - sentBefore,
      `a property of ${details.numRuns} generated case(s)`,
    );
  }
  // The shrunk case's failure names the rule it broke; the property's failure keeps that charge.
  const shrunkCharge = chargedRule(details.errorInstance);
  const byContract =
    details.errorInstance instanceof ChargedFailure && details.errorInstance.byContract;
  if (!details.failed || details.counterexample === null) {
    if (details.failed)
      throw chargedAs(
        shrunkCharge,
        new Error(fc.defaultReportMessage(details) ?? 'the property failed'),
        byContract,
      );
    return;
  }
  const [counterexample] = details.counterexample;
  log.length = 0;
  let recheck: string;
  try {
    await predicate(counterexample);
    recheck =
      'Re-checked after shrinking: the shrunk case PASSED when run again, so the failure depends on state or timing.';
  } catch (error) {
    recheck = `Re-checked after shrinking: the shrunk case still fails:\n${error instanceof Error ? error.message : String(error)}`;
  }
  throw chargedAs(
    shrunkCharge,
    new Error(`${fc.defaultReportMessage(details) ?? 'the property failed'}\n\n${recheck}`),
    byContract,
  );
}

/** `error` charged to `ruleId`, or left uncharged when there is none. */
function chargedAs(ruleId: string | undefined, error: Error, byContract = false): Error {
  return ruleId === undefined ? error : new ChargedFailure(ruleId, error, byContract);
}

/** What was thrown, under its charge: a refusal or a hang charged to a rule is still one. */
export function uncharged(error: unknown): unknown {
  return error instanceof ChargedFailure ? error.original : error;
}
