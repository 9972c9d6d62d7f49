import fc from 'fast-check';
import { it } from 'vitest';
import { ApiClient } from './client.ts';
import { NEED_DESCRIPTIONS, readRunConfig, type Need, type RunConfig } from './config.ts';
import { describeExchange, type Exchange } from './exchange.ts';
import { ruleById, type Rule } from './rules.ts';
import { SpecValidator } from './spec-validator.ts';
import { createTarget, type Target } from './targets.ts';

declare module 'vitest' {
  interface TaskMeta {
    /** Rule ids (conformance/rules.yaml) this test verifies. */
    rules?: string[];
    /** What the test needs from the target. */
    needs?: Need[];
  }
}

/** What every check body receives. */
export interface CheckContext {
  /** A client for this target, validating every API response against the contract. */
  api: ApiClient;
  target: Target;
  validator: SpecValidator;
  run: RunConfig;
  /**
   * Runs a fast-check property with the run's seed. On failure the shrunk case is run once
   * more, so the report shows its own HTTP exchanges and says whether it still fails.
   */
  property<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>): Promise<void>;
}

export interface CheckOptions {
  /** What the check needs; on a target without it the check is skipped with the reason. */
  needs?: Need[];
  timeout?: number;
}

let shared: { target: Target; validator: SpecValidator; run: RunConfig } | undefined;

/** One target and one validator per check file (vitest isolates files from each other). */
function sharedState() {
  if (shared === undefined) {
    const run = readRunConfig();
    shared = { run, target: createTarget(run.target), validator: new SpecValidator() };
  }
  return shared;
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
  it(
    `${ruleIds.join(' ')}: ${behaviour}`,
    { meta: { rules: ruleIds, needs }, timeout: options.timeout ?? 30_000 },
    async (context) => {
      const { target, validator, run } = sharedState();
      const missing = needs.filter((need) => !target.offers.has(need));
      if (missing.length > 0) {
        context.skip(`needs ${missing.map((need) => NEED_DESCRIPTIONS[need]).join('; ')}`);
      }
      const log: Exchange[] = [];
      const property = <T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>) =>
        checkProperty(log, arbitrary, predicate);
      try {
        await body({
          api: new ApiClient(target, validator, log),
          target,
          validator,
          run,
          property,
        });
      } catch (error) {
        throw explainFailure(error, rules, behaviour, log, target, run);
      }
    },
  );
}

function explainFailure(
  error: unknown,
  rules: Rule[],
  behaviour: string,
  log: Exchange[],
  target: Target,
  run: RunConfig,
): unknown {
  if (!(error instanceof Error)) return error;
  const ruleLines = rules.map((r) => `  ${r.id} (§${r.section}, ${r.source}): "${r.sentence}"`);
  const recent = log.slice(-3);
  const exchangeLines =
    recent.length === 0
      ? ['  (no HTTP exchange)']
      : recent.map((x) => describeExchange(x, target.baseUrl));
  const targetFlags =
    target.kind === 'live' ? ` --base-url ${target.baseUrl} --api-key "$MAILTWIN_API_KEY"` : '';
  error.message = [
    `Rule broken while checking that it ${behaviour}:`,
    ...ruleLines,
    '',
    error.message,
    '',
    `Last ${recent.length} HTTP exchange(s), oldest first:`,
    ...exchangeLines,
    '',
    `Replay: npx mailtwin-conformance${targetFlags} --seed ${run.seed} --filter ${JSON.stringify(behaviour)}`,
  ].join('\n');
  return error;
}

async function checkProperty<T>(
  log: Exchange[],
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
): Promise<void> {
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      log.length = 0; // keep only the exchanges of the case being tried
      await predicate(value);
    }),
  );
  if (!details.failed || details.counterexample === null) {
    if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? 'the property failed');
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
  throw new Error(`${fc.defaultReportMessage(details) ?? 'the property failed'}\n\n${recheck}`);
}
