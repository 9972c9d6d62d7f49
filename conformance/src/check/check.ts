import fc from 'fast-check';
import { it } from 'vitest';
import {
  ChargedFailure,
  charge,
  chargedRule,
  recordDecided,
  abandonable,
  collectReached,
  recordingDecided,
  withoutRecording,
} from '../contract/charge.ts';
import { resetWaiting, waitedSoFar } from '../client/waiting.ts';
import { ApiClient, NoAnswer, type StoredUpload } from '../client/client.ts';
import { readRunConfig, type Need, type RunConfig } from '../run/config.ts';
import { replayContextFor } from '../client/curl.ts';
import { replayExchanges, type Exchange } from '../client/exchange.ts';
import { expectSentSomething } from './nothing-sent.ts';
import { offeredNeeds, selectCheck } from '../run/profiles.ts';
import { workerRateLimiter } from '../client/rate-limit.ts';
import { ruleById, type Rule } from '../contract/rules.ts';
import { SafetyRefusal } from '../client/safety.ts';
import { SpecValidator } from '../contract/spec-validator.ts';
import { Dialect, defaultDialect } from '../binding/dialect.ts';
import { liveReceiver } from '../client/webhook-receiver.ts';
import type { Target } from '../client/target.ts';
import { MissingCapability, type CheckContext } from '../worlds/context.ts';

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
}

let shared:
  { target: Target; validator: SpecValidator; run: RunConfig; dialect: Dialect } | undefined;

/** Set to 1, each worker says on stderr when it builds its target (cli.test.ts counts them). */
export const TRACE_ENV = 'MAILTWIN_CONFORMANCE_TRACE';

/**
 * One target and one validator per worker: the run does not isolate check files from each
 * other (cli/main.ts), so a worker builds the emulator and compiles the contract once, not once
 * per file (which cost about 2 s a file). The emulator is imported only when a check runs.
 */
async function sharedState() {
  if (shared === undefined) {
    const run = readRunConfig();
    const { createTarget } = await import('../worlds/targets.ts');
    const target = createTarget(run.target);
    const published = await publishedContract(target, run.binding?.publishedUrl);
    const validator = new SpecValidator(undefined, undefined, published);
    shared ??= {
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
    if (shared.target.webhook !== undefined) await liveReceiver(shared.target.webhook.listen);
    if (process.env[TRACE_ENV] === '1')
      process.stderr.write(`mailtwin-conformance trace: built the ${run.target.kind} target\n`);
  }
  return shared;
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
  it(
    name,
    // The check's own budget (`budgetMs`, active time) ends it as not finished first; vitest's
    // time-out is only a backstop, long against a live target whose mail may take its time.
    { meta: { rules: ruleIds, needs, behaviour }, timeout: backstopMs(budgetMs) },
    async (context) => {
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
      const property = <T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>) =>
        checkProperty(log, counts, arbitrary, predicate);
      const undos: (() => Promise<void>)[] = [];
      const cleanup = (undo: () => Promise<void>) => void undos.unshift(undo);
      const unchecked = (ids: string[], missing: Need[]) => {
        const selection = selectCheck(missing, offeredNeeds(config.target), config.profile);
        const reason = selection.run ? `needs ${missing.join(', ')}` : selection.reason;
        context.task.meta.unchecked = { rules: ids, needs: missing, reason };
      };
      resetWaiting();
      const reached = new Set<string>();
      collectReached(reached);
      const watchdog = startWatchdog(budgetMs);
      try {
        // Decided departures are recorded and the check goes on to its documented assertions;
        // the first is then its verdict, unless a documented rule failed (decidedVerdict).
        const { outcome, decided } = await recordingDecided(() =>
          watchdog.race(() => body({ api, target, validator, run, property, cleanup, unchecked })),
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
        collectReached(undefined);
        // Cleaning up judges nothing: a failure to delete is the target's to explain later,
        // never this check's verdict.
        for (const undo of undos) await undo().catch(() => undefined);
        // An abandoned body may still be running: once the clean-up is done, it sends nothing.
        if (context.task.meta.unfinished === true) api.stop();
        context.task.meta.requests = counts.requests;
        context.task.meta.cases = counts.cases;
        if (uploads.length > 0) context.task.meta.uploads = uploads;
      }
    },
  );
}

/**
 * A check that used up its time budget: it fails no rule (running out of time is not a broken
 * rule, issue 28 item 4) and is reported as not finished, with how far it got.
 */
class NotFinished extends Error {
  override name = 'NotFinished';
  constructor(
    readonly activeMs: number,
    readonly waitedMs: number,
  ) {
    super('not finished');
  }
}

/** Active time, in ms, a check may use before vitest's backstop: against a live target, hours. */
function backstopMs(budgetMs: number): number {
  return readRunConfig().target.kind === 'live' ? 6 * 3_600_000 : budgetMs + 120_000;
}

/**
 * Ends a check that has used `budgetMs` of active time: wall time less what it spent waiting
 * on the target's pace (client/waiting.ts), so the budget follows the target's delivery time.
 */
function startWatchdog(budgetMs: number) {
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
function notFinishedReason(
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

/**
 * What a check that departed from decided rules ends with: a documented failure or a refusal
 * of the suite's own stands; otherwise the first decided departure, which also takes an
 * uncharged error that came after it (the check could not go on past the departure). The
 * message lists every departure the check recorded.
 */
function decidedVerdict(thrown: unknown, decided: ChargedFailure[]): unknown {
  if (decided.length === 0) return thrown;
  const cause = uncharged(thrown);
  const own = cause instanceof SafetyRefusal || cause instanceof MissingCapability;
  const documented =
    thrown instanceof ChargedFailure && ruleById(thrown.ruleId)?.source !== 'decided';
  if (thrown !== undefined && (own || documented)) return thrown;
  const first = decided[0]!;
  const more = decided.slice(1).map((d) => `  - ${d.ruleId}: ${d.message.split('\n')[0]}`);
  const after =
    thrown === undefined
      ? ''
      : `\nafter which the check stopped: ${thrown instanceof Error ? thrown.message.split('\n')[0] : String(thrown)}`;
  const message = `${first.message}${more.length === 0 ? '' : `\nother departures from decided rules in this check:\n${more.join('\n')}`}${after}`;
  const failure = new ChargedFailure(
    first.ruleId,
    Object.assign(new Error(message), { stack: first.stack }),
    first.byContract,
  );
  return failure;
}

function explainFailure(
  error: unknown,
  rules: Rule[],
  behaviour: string,
  log: Exchange[],
  target: Target,
  run: RunConfig,
  needs: Need[],
  completed = false,
): unknown {
  if (!(error instanceof Error)) return error;
  const ruleLine = (r: Rule) => `  ${r.id} (§${r.section}, ${r.source}): "${r.sentence}"`;
  const charged = chargedRule(error);
  const chargedTo = rules.find((r) => r.id === charged);
  const others = rules.filter((r) => r !== chargedTo);
  const ruleLines =
    chargedTo !== undefined
      ? [
          'Charged to (the rule the failing assertion checks):',
          ruleLine(chargedTo),
          ...(others.length === 0
            ? []
            : completed
              ? [
                  `Checked and held (the check ran to its end): ${others.map((r) => r.id).join(', ')}`,
                ]
              : [`Not reached (the check stopped here): ${others.map((r) => r.id).join(', ')}`]),
        ]
      : [
          charged === undefined
            ? 'Uncharged (the failure named no rule), so counted against every rule of the check:'
            : `Charged to ${charged}, which this check does not declare (a problem with the suite), so counted against every rule of the check:`,
          ...rules.map(ruleLine),
        ];
  const recent = log.slice(-3);
  const exchangeLines = replayExchanges(log, 3, replayContextFor(target, run.replayFiles));
  const targetFlags = replayTargetFlags(target, needs);
  const runFlags = run.numRuns === 50 ? '' : ` --num-runs ${run.numRuns}`;
  error.message = [
    `Rule broken while checking that it ${behaviour}:`,
    ...ruleLines,
    '',
    error.message,
    '',
    `Last ${recent.length} HTTP exchange(s), oldest first:`,
    ...exchangeLines,
    '',
    `Replay: npx mailtwin-conformance${targetFlags} --seed ${run.seed}${runFlags} --filter ${JSON.stringify(behaviour)}`,
  ].join('\n');
  return error;
}

/** The target flags of a replay command, with secrets as shell variables. */
function replayTargetFlags(target: Target, needs: Need[]): string {
  if (target.kind !== 'live') return '';
  const flags = [` --base-url ${target.baseUrl} --api-key "$MAILTWIN_API_KEY"`];
  if (!/\/openapi\/v1$/.test(target.baseUrl)) flags.push(' --unversioned-base-url');
  for (const mailbox of target.mailboxes ?? []) flags.push(` --mailbox ${mailbox}`);
  if (needs.includes('destructive')) flags.push(' --destructive');
  if (target.control !== undefined) {
    flags.push(
      ` --control-url ${target.control.baseUrl} --control-token "$MAILTWIN_CONTROL_TOKEN"`,
    );
  }
  if (target.secondApiKey !== undefined) flags.push(' --second-api-key "$MAILTWIN_SECOND_API_KEY"');
  return flags.join('');
}

/**
 * Runs a property twice at most. First with departures from decided rules recorded, so every
 * case reaches its documented assertions (a documented failure is shrunk and thrown as
 * before); then, only if a case departed, once more with them thrown, so the departure gets a
 * shrunk counterexample of its own, which is recorded for the check and the check goes on.
 */
async function checkProperty<T>(
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
function uncharged(error: unknown): unknown {
  return error instanceof ChargedFailure ? error.original : error;
}
