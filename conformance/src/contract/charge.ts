/**
 * One assertion, one rule: a failure is charged to the rule the failing assertion checks, not
 * to every rule its check names (GUIDE "One assertion, one rule"). A documented rule that fails
 * fails the run; a decided one (D-n) warns unless `--strict`.
 *
 *     expectAt('4.4-R2', detail.read).toBe(false);
 *     await chargeTo('D-22', async () => { ... several assertions of one rule ... });
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { expect } from 'vitest';
import { ruleById } from './rules.ts';

/** A failure charged to exactly one rule of conformance/rules.yaml. */
export class ChargedFailure extends Error {
  override name = 'ChargedFailure';

  constructor(
    readonly ruleId: string,
    readonly original: unknown,
    /**
     * Charged by the response contract rather than by a check's own assertion: any check may
     * meet it, so it counts for its rule whether or not the check names that rule.
     */
    readonly byContract = false,
  ) {
    super(original instanceof Error ? original.message : String(original));
    if (original instanceof Error && original.stack !== undefined) this.stack = original.stack;
  }
}

/**
 * Where a running check's departures from decided rules go (issue 26 item 5): a decision is
 * one guess a deployment may not share, so its assertion is recorded, never thrown, and the
 * check goes on to the documented assertions behind it. check.ts opens it around each check
 * and reports what it holds once the check is done.
 */
const decidedSink = new AsyncLocalStorage<ChargedFailure[] | undefined>();

/**
 * Runs `block` with decided failures recorded instead of thrown; returns them too. The sink
 * follows `block`'s own async calls, so property cases run side by side (property.ts) each
 * record their own.
 */
export async function recordingDecided<T>(
  block: () => Promise<T>,
): Promise<{ outcome: PromiseSettledResult<T>; decided: ChargedFailure[] }> {
  const decided: ChargedFailure[] = [];
  try {
    const value = await decidedSink.run(decided, block);
    return { outcome: { status: 'fulfilled', value }, decided };
  } catch (reason) {
    return { outcome: { status: 'rejected', reason }, decided };
  }
}

/** Runs `block` with decided failures thrown, as outside a check (a property's second run). */
export async function withoutRecording<T>(block: () => Promise<T>): Promise<T> {
  return decidedSink.run(undefined, block);
}

/**
 * Records `failure` when it is charged to a decided rule and a check is recording; says
 * whether it did (the caller then goes on instead of throwing).
 */
export function recordDecided(failure: ChargedFailure): boolean {
  const sink = decidedSink.getStore();
  if (sink === undefined || ruleById(failure.ruleId)?.source !== 'decided') return false;
  sink.push(failure);
  return true;
}

/** The rule a failure is charged to, when it was charged to one. */
export function chargedRule(error: unknown): string | undefined {
  return error instanceof ChargedFailure ? error.ruleId : undefined;
}

/** `error` charged to `ruleId`, unless it is already charged (the innermost charge wins). */
export function charge(ruleId: string, error: unknown): ChargedFailure {
  return error instanceof ChargedFailure ? error : new ChargedFailure(ruleId, error);
}

/** Runs `block`, charging anything it throws to `ruleId`. */
export async function chargeTo<T>(ruleId: string, block: () => T | Promise<T>): Promise<T> {
  try {
    return await block();
  } catch (error) {
    throw charge(ruleId, error);
  }
}

/**
 * vitest's `expect(actual, message)` whose every matcher (`.not`, `.resolves` and `.rejects`
 * chains included) charges its failure to `ruleId`.
 */
export function expectAt<T>(
  ruleId: string,
  actual: T,
  message?: string,
): ReturnType<typeof expect<T>> {
  return charged(ruleId, expect(actual, message));
}

function charged<A extends object>(ruleId: string, assertion: A): A {
  return new Proxy(assertion, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value === 'function') {
        return (...args: unknown[]) => {
          if (checkBody.getStore()?.abandoned === true)
            throw new Abandoned('the check ran out of time');
          let result: unknown;
          try {
            result = (value as (...a: unknown[]) => unknown).apply(target, args);
          } catch (error) {
            const charged = charge(ruleId, error);
            if (recordDecided(charged)) return undefined;
            throw charged;
          }
          if (isThenable(result)) {
            return result.then(undefined, (error: unknown) => {
              const charged = charge(ruleId, error);
              if (recordDecided(charged)) return undefined;
              throw charged;
            });
          }
          if (!isThenable(result)) reachedSink.getStore()?.add(ruleId);
          return typeof result === 'object' && result !== null ? charged(ruleId, result) : result;
        };
      }
      return typeof value === 'object' && value !== null ? charged(ruleId, value) : value;
    },
  });
}

/**
 * A check body that ran out of time goes on running in the background (a promise cannot be
 * cancelled): once abandoned, its next assertion stops it, and nothing it asserts reaches the
 * check that runs after it.
 */
const checkBody = new AsyncLocalStorage<{ abandoned: boolean }>();

/** Thrown into an abandoned check body at its next assertion. */
export class Abandoned extends Error {
  override name = 'Abandoned';
}

/** Runs a check's body so that it can be abandoned; `abandon` stops its later assertions. */
export function abandonable<T>(block: () => Promise<T>): { running: Promise<T>; abandon(): void } {
  const state = { abandoned: false };
  return { running: checkBody.run(state, block), abandon: () => void (state.abandoned = true) };
}

/**
 * Rules whose assertions have held so far in the running check: a check that runs out of time
 * reports how far it got (check.ts). Each check collects into its own set, which follows its
 * body's async calls, so checks run side by side never record into each other's.
 */
const reachedSink = new AsyncLocalStorage<Set<string>>();

/** Runs `block` collecting into `into` the rules whose assertions hold in it. */
export function collectingReached<T>(into: Set<string>, block: () => T): T {
  return reachedSink.run(into, block);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
