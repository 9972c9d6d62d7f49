/**
 * How a failed check reads: the rule it is charged to with its sentence, what it did not
 * reach, the last HTTP exchanges as curl commands, and the command that replays it; and what
 * a check that departed from decided rules ends with.
 */
import { ChargedFailure, chargedRule } from '../contract/charge.ts';
import { ruleById, type Rule } from '../contract/rules.ts';
import { replayContextFor } from '../client/curl.ts';
import { replayExchanges, type Exchange } from '../client/exchange.ts';
import { SafetyRefusal } from '../client/safety.ts';
import type { Target } from '../client/target.ts';
import type { Need, RunConfig } from '../run/config.ts';
import { MissingCapability } from '../worlds/context.ts';
import { uncharged } from './property.ts';

/**
 * What a check that departed from decided rules ends with: a documented failure or a refusal
 * of the suite's own stands; otherwise the first decided departure, which also takes an
 * uncharged error that came after it (the check could not go on past the departure). The
 * message lists every departure the check recorded.
 */
export function decidedVerdict(thrown: unknown, decided: ChargedFailure[]): unknown {
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

export function explainFailure(
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
