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
): Promise<void> {
  let departed = false;
  await runProperty(log, counts, arbitrary, async (value) => {
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
    await withoutRecording(() => runProperty(log, counts, arbitrary, predicate));
  } catch (error) {
    if (error instanceof ChargedFailure && recordDecided(error)) return;
    throw error;
  }
}

async function runProperty<T>(
  log: Exchange[],
  counts: { requests: number; cases: number },
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
): Promise<void> {
  // A refusal of the suite (safety.ts) is not a counterexample: stop trying cases and skip.
  let refusal: unknown;
  // A request that got no answer is the finding itself. Shrinking would wait the whole
  // --request-timeout again for every smaller case that hangs, so every later case passes
  // untried: fast-check then keeps the case that hung, and its exchanges stay in the log.
  let hang: { error: NoAnswer; value: T } | undefined;
  let hangCharge: string | undefined;
  const sentBefore = counts.requests;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
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
