import type fc from 'fast-check';
import { it, type TestContext } from 'vitest';
import {
  ChargedFailure,
  chargedRule,
  collectingReached,
  recordingDecided,
} from '../contract/charge.ts';
import { WaitClock, countingWaits } from '../client/waiting.ts';
import { claimTag } from '../worlds/claims.ts';
import { ApiClient } from '../client/client.ts';
import type { StoredUpload } from '../client/policy.ts';
import { readRunConfig, type Need, type RunConfig } from '../run/config.ts';
import type { Exchange } from '../client/exchange.ts';
import { expectSentSomething } from './nothing-sent.ts';
import { offeredNeeds, selectCheck } from '../run/profiles.ts';
import { workerRateLimiter } from '../client/rate-limit.ts';
import { ruleById } from '../contract/rules.ts';
import { SafetyRefusal } from '../client/safety.ts';
import { SpecValidator } from '../contract/spec-validator.ts';
import { Dialect, defaultDialect } from '../binding/dialect.ts';
import { liveReceiver } from '../client/webhook-receiver.ts';
import type { Target } from '../client/target.ts';
import { MissingCapability, type CheckContext } from '../worlds/context.ts';
import { decidedVerdict, explainFailure } from './explain.ts';
import { checkProperty, uncharged, type PropertyOptions } from './property.ts';
import { NotFinished, backstopMs, notFinishedReason, startWatchdog } from './watchdog.ts';

declare module 'vitest' {
  interface TaskMeta {
    /** Rule ids (conformance/rules.yaml) this test verifies. */
    rules?: string[];
    /** The check used up its time budget: skipped as not finished, failing no rule. */
    unfinished?: boolean;
    /** What the test needs from the target. */
    needs?: Need[];
    /** The behaviour it verifies: the test name without the rule ids. */
    behaviour?: string;
    /** HTTP requests its client sent (set when it ends, for the run's figures). */
    requests?: number;
    /** fast-check cases it ran. */
    cases?: number;
    /** Of its wall time, the part spent waiting on the target's pace (client/waiting.ts). */
    waitedMs?: number;
    /** Files it stored on a live target, which no endpoint deletes (§4.9). */
    uploads?: StoredUpload[];
    /**
     * When it failed: the rules its failure was charged to (`expectAt`/`chargeTo`, charge.ts),
     * as the failure named them; absent when it named none. summary.ts decides what that
     * means (an undeclared rule, or none, charges every rule of the check).
     */
    chargedRules?: string[];
    /**
     * A check that failed only by departing from decided rules, after running to its end:
     * every other rule it names was checked and held (summary.ts counts them passed).
     */
    completed?: boolean;
    /**
     * Rules of a passing check that this target could not let it reach (an API world has no
     * faults on demand, say): reported as a skipped part of the check, never as passed.
     */
    unchecked?: { rules: string[]; needs: Need[]; reason: string };
  }
}

// What a check body receives, and the refusal a world throws for a capability it lacks: they
// live with the worlds that provide them; a check file takes them from here with `rule`.
export { MissingCapability, type CheckContext };

/**
 * What a check declares beside its rules.
 *
 * `needs` names what the check cannot run without; on a target that lacks one, or under a
 * profile that leaves it out, the check is skipped with the reason, never passed:
 * - a capability of a world (config.ts, NEED_DESCRIPTIONS): `mail` in a mailbox, which any
 *   world gives; `second-key`, `scoped-keys`, `disabled-keys`, `suppressed`, which an API world
 *   gives through flags; `crafted-mail`, `provisioning`, `sent-message`, `clock`, `faults` and
 *   `webhook-config`, which only a control plane gives (writes made there are not writes
 *   through the API: they land in owners and mailboxes the check created for itself);
 *   `webhook-receiver`, a receiver the target delivers to.
 * - `destructive`: it may write through the API: it sends at least one request other than
 *   GET, HEAD or OPTIONS to anything but the control plane (send, reply, forward, upload,
 *   PATCH or DELETE of an email), even one it expects to be refused (a bad PATCH must change
 *   nothing, but a non-conformant target might carry it out). The client enforces this: an
 *   undeclared write fails the check before it is sent. `--profile read-only` leaves every
 *   such check out, and a live target offers it only with `--destructive`.
 */
export interface CheckOptions {
  needs?: Need[];
  timeout?: number;
  /**
   * The check may run side by side with the other checks of its file that say so (vitest's
   * `it.concurrent`, at most MAX_CONCURRENT_CHECKS at once, run/config.ts), instead of alone: it
   * touches no state other checks share (a control world's clock, faults or suppressions), and
   * in an API world it tags every email it sends with its own tag (`w.subject()`, send-world.ts)
   * and sees only what it made or tagged (mail-watch.ts). A check that counts all the mail of a
   * mailbox, or changes what every check sees, leaves it out and runs alone. `'api-world'`:
   * side by side only against a target without a control plane, for a check that injects
   * faults through the control plane when it has one (they would reach every check).
   */
  concurrent?: boolean | 'api-world';
}

/**
 * Needs whose state the whole target shares: a check with one of them runs alone even if it
 * says it may run side by side (moving the clock or injecting a fault reaches every check).
 */
const SHARED_STATE_NEEDS: ReadonlySet<Need> = new Set<Need>(['clock', 'faults', 'suppressed']);

type Shared = { target: Target; validator: SpecValidator; run: RunConfig; dialect: Dialect };
let shared: Promise<Shared> | undefined;

/** Set to 1, each worker says on stderr when it builds its target (cli.test.ts counts them). */
export const TRACE_ENV = 'MAILTWIN_CONFORMANCE_TRACE';

/**
 * One target and one validator per worker: the run does not isolate check files from each
 * other (cli/main.ts), so a worker builds the emulator and compiles the contract once, not once
 * per file (which cost about 2 s a file). The emulator is imported only when a check runs.
 * Checks that start side by side share the one being built.
 */
function sharedState(): Promise<Shared> {
  // A build that failed is tried again by the next check, as each check did before.
  shared ??= buildShared().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

async function buildShared(): Promise<Shared> {
  const run = readRunConfig();
  const { createTarget } = await import('../worlds/targets.ts');
  const target = createTarget(run.target);
  const published = await publishedContract(target, run.binding?.publishedUrl);
  const validator = new SpecValidator(undefined, undefined, published);
  const built: Shared = {
    run,
    target,
    validator,
    dialect:
      run.binding === undefined
        ? defaultDialect()
        : new Dialect(run.binding.resolved, (id) => validator.errorCodesOf(id)),
  };
  // The deployment's webhook covers all the mail the run causes: its receiver listens from
  // the first check on, so no delivery fails for want of it.
  if (built.target.webhook !== undefined) await liveReceiver(built.target.webhook.listen);
  if (process.env[TRACE_ENV] === '1')
    process.stderr.write(`mailtwin-conformance trace: built the ${run.target.kind} target\n`);
  return built;
}

/**
 * The target's own published document, the decided layer when its binding departs from the
 * default (binding/target-binding.ts): read once per worker, as the CLI read it.
 */
async function publishedContract(
  target: Target,
  url: string | undefined,
): Promise<{ document: Record<string, unknown>; origin: string } | undefined> {
  if (url === undefined) return undefined;
  const answer = await target.fetch(new Request(url));
  if (answer.status !== 200) throw new Error(`GET ${url} answered ${answer.status} in this worker`);
  return { document: (await answer.json()) as Record<string, unknown>, origin: url };
}

/** Whether the run's target is reached through its API alone (no control plane). */
function inApiWorld(): boolean {
  const { target } = readRunConfig();
  return target.kind === 'live' && target.control === undefined;
}

/** A check as its file declares it, read without vitest (the dry run). */
export interface DeclaredCheck {
  name: string;
  behaviour: string;
  rules: string[];
  needs: Need[];
}

/** Where `rule()` records while a check file is read for its declarations, not run. */
let collecting: DeclaredCheck[] | undefined;
const declaredByFile = new Map<string, DeclaredCheck[]>();

/**
 * The checks a file declares, read by importing it with `rule()` recording instead of
 * registering a test: no test body, hook or target runs, and no vitest worker starts, so the
 * dry run answers in about a second. A module is evaluated once per process, so what it
 * declared is kept for the next call.
 */
export async function declaredChecks(fileUrl: string): Promise<DeclaredCheck[]> {
  const known = declaredByFile.get(fileUrl);
  if (known !== undefined) return known;
  const declared: DeclaredCheck[] = [];
  collecting = declared;
  try {
    await import(fileUrl);
  } finally {
    collecting = undefined;
  }
  declaredByFile.set(fileUrl, declared);
  return declared;
}

/**
 * Declares a conformance test of the given rules. The test name carries the rule ids; its
 * metadata carries rules and needs for the per-rule report; a failure is rewritten to name the
 * rule, its sentence, the HTTP exchanges as `curl` commands, and how to replay the run.
 */
export function rule(
  ruleIds: string[],
  behaviour: string,
  body: (context: CheckContext) => Promise<void>,
  options: CheckOptions = {},
): void {
  const rules = ruleIds.map((id) => {
    const found = ruleById(id);
    if (found === undefined) throw new Error(`check "${behaviour}" names unknown rule ${id}`);
    return found;
  });
  const needs = options.needs ?? [];
  const budgetMs = options.timeout ?? 30_000;
  const name = `${ruleIds.join(' ')}: ${behaviour}`;
  if (collecting !== undefined) {
    collecting.push({ name, behaviour, rules: ruleIds, needs });
    return;
  }
  const concurrent =
    (options.concurrent === true || (options.concurrent === 'api-world' && inApiWorld())) &&
    !needs.some((need) => SHARED_STATE_NEEDS.has(need));
  (concurrent ? it.concurrent : it)(
    name,
    // The check's own budget (`budgetMs`, active time) ends it as not finished first; vitest's
    // time-out is only a backstop, long against a live target whose mail may take its time.
    { meta: { rules: ruleIds, needs, behaviour }, timeout: backstopMs(budgetMs) },
    (context) => {
      // The check's own wait clock and rules reached follow its body's async calls, so checks
      // run side by side each count only their own (waiting.ts, charge.ts).
      const waits = new WaitClock();
      const reached = new Set<string>();
      return countingWaits(waits, () =>
        collectingReached(reached, () => runCheck(context, waits, reached)),
      );
    },
  );

  async function runCheck(context: TestContext, waits: WaitClock, reached: Set<string>) {
    // Decided from the configuration alone, before the target is built: the profile's
    // choice and the target's offers, with the reason the report shows.
    const config = readRunConfig();
    const selection = selectCheck(needs, offeredNeeds(config.target), config.profile);
    if (!selection.run) context.skip(selection.reason);
    const { target, validator, run, dialect } = await sharedState();
    const log: Exchange[] = [];
    const counts = { requests: 0, cases: 0 };
    // Files stored on a live target stay there (no endpoint deletes an upload): reported.
    const uploads: StoredUpload[] = [];
    const limiter = workerRateLimiter(run.workerMaxRps);
    const api = new ApiClient(target, validator, log, {
      writes: needs.includes('destructive'),
      // Mail goes to the given mailboxes, and to suppressed addresses only to be refused.
      ...(target.kind === 'live'
        ? { mailboxes: [...(target.mailboxes ?? []), ...(target.suppressed ?? [])] }
        : {}),
      ...(limiter === undefined ? {} : { limiter }),
      counter: counts,
      requestTimeoutMs: run.requestTimeoutMs,
      ...(target.kind === 'live' ? { uploads } : {}),
      dialect,
    });
    // Side by side in an API world, the check tags what it sends (worlds/claims.ts).
    const tag = concurrent && target.kind === 'live' ? claimTag() : undefined;
    const property = <T>(
      arbitrary: fc.Arbitrary<T>,
      predicate: (value: T) => Promise<void>,
      options?: PropertyOptions,
    ) => checkProperty(log, counts, arbitrary, predicate, options);
    const undos: (() => Promise<void>)[] = [];
    const cleanup = (undo: () => Promise<void>) => void undos.unshift(undo);
    const unchecked = (ids: string[], missing: Need[]) => {
      const selection = selectCheck(missing, offeredNeeds(config.target), config.profile);
      const reason = selection.run ? `needs ${missing.join(', ')}` : selection.reason;
      context.task.meta.unchecked = { rules: ids, needs: missing, reason };
    };
    const watchdog = startWatchdog(budgetMs);
    try {
      // Decided departures are recorded and the check goes on to its documented assertions;
      // the first is then its verdict, unless a documented rule failed (decidedVerdict).
      const { outcome, decided } = await recordingDecided(() =>
        watchdog.race(() =>
          body({
            api,
            target,
            validator,
            run,
            property,
            cleanup,
            unchecked,
            ...(tag === undefined ? {} : { tag }),
          }),
        ),
      );
      if (outcome.status === 'rejected') throw decidedVerdict(outcome.reason, decided);
      if (decided.length > 0) {
        context.task.meta.completed = true;
        throw decidedVerdict(undefined, decided);
      }
      expectSentSomething(counts.requests, `the check "${behaviour}"`);
    } catch (error) {
      const cause = uncharged(error);
      if (cause instanceof NotFinished) {
        context.task.meta.unfinished = true;
        context.skip(notFinishedReason(cause, counts, reached, ruleIds));
      }
      if (cause instanceof SafetyRefusal) context.skip(`the suite refused: ${cause.message}`);
      if (cause instanceof MissingCapability) context.skip(cause.message);
      const charged = chargedRule(error);
      if (charged !== undefined) context.task.meta.chargedRules = [charged];
      // Every response is held to the whole contract, so a check may meet a breach of a rule
      // it does not name: the breach is charged to the contract's rule, and the check then
      // counts for that rule too.
      const contractRule =
        error instanceof ChargedFailure && error.byContract ? ruleById(error.ruleId) : undefined;
      const checked =
        contractRule !== undefined && !ruleIds.includes(contractRule.id)
          ? [...rules, contractRule]
          : rules;
      if (checked !== rules) context.task.meta.rules = checked.map((r) => r.id);
      throw explainFailure(
        error,
        checked,
        behaviour,
        log,
        target,
        run,
        needs,
        context.task.meta.completed === true,
      );
    } finally {
      watchdog.stop();
      // Cleaning up judges nothing: a failure to delete is the target's to explain later,
      // never this check's verdict.
      for (const undo of undos) await undo().catch(() => undefined);
      // An abandoned body may still be running: once the clean-up is done, it sends nothing.
      if (context.task.meta.unfinished === true) api.stop();
      context.task.meta.requests = counts.requests;
      context.task.meta.cases = counts.cases;
      context.task.meta.waitedMs = Math.round(waits.soFar());
      if (uploads.length > 0) context.task.meta.uploads = uploads;
    }
  }
}
