import type { Need, ProfileName } from '../run/config.ts';
import { PROFILES, selectCheck, type Selection } from '../run/profiles.ts';
import type { Rule } from '../contract/rules.ts';
import { NOT_SELECTED_BY_FILTER } from '../report/summary.ts';

/** A check as vitest's collection sees it: imported, declared, never run. */
export interface CollectedCheck {
  file: string;
  name: string;
  behaviour: string;
  rules: string[];
  needs: Need[];
}

export interface PlannedCheck extends CollectedCheck {
  selection: Selection;
}

export interface PlanInput {
  checks: CollectedCheck[];
  offers: ReadonlySet<Need>;
  profile: ProfileName;
  filter: string | undefined;
}

/**
 * What a run would do with each check: run it, or skip it and why. The same decision the
 * workers take in `rule()` (selectCheck), plus `--filter`, which vitest applies by name.
 */
export function planChecks({ checks, offers, profile, filter }: PlanInput): PlannedCheck[] {
  return checks.map((check) => {
    if (filter !== undefined && !check.name.includes(filter))
      return { ...check, selection: { run: false, reason: NOT_SELECTED_BY_FILTER } };
    return { ...check, selection: selectCheck(check.needs, offers, profile) };
  });
}

export interface PlanFacts {
  target: string;
  profile: ProfileName;
  seed: number;
  numRuns: number;
  shard?: string;
  maxRps: number | null;
}

/** The dry run's listing: every check by file, with rules, needs and the decision. */
export function formatPlan(
  plan: PlannedCheck[],
  rules: Rule[],
  problems: string[],
  facts: PlanFacts,
): string {
  const lines = [
    `mailtwin-conformance --dry-run: nothing is sent to ${facts.target}`,
    `Profile ${facts.profile}: ${PROFILES[facts.profile].description}. Seed ${facts.seed}, ${facts.numRuns} runs per property; ${facts.maxRps === null ? 'no request-rate limit' : `at most ${facts.maxRps} requests per second`}${facts.shard === undefined ? '' : `; shard ${facts.shard}`}`,
    '',
  ];
  let file = '';
  for (const check of plan) {
    if (check.file !== file) {
      file = check.file;
      lines.push(file);
    }
    lines.push(
      `  ${check.selection.run ? 'RUN ' : 'SKIP'} ${check.behaviour}`,
      `       rules ${check.rules.join(' ')}; needs ${check.needs.length === 0 ? 'nothing' : check.needs.join(', ')}`,
    );
    if (!check.selection.run) lines.push(`       skipped: ${check.selection.reason}`);
  }
  const running = plan.filter((c) => c.selection.run);
  const covered = new Set(running.flatMap((c) => c.rules));
  const known = rules.filter((r) => covered.has(r.id));
  const bySource = (source: Rule['source']) =>
    `${known.filter((r) => r.source === source).length}/${rules.filter((r) => r.source === source).length}`;
  lines.push(
    '',
    `Checks: ${running.length} would run, ${plan.length - running.length} would be skipped, of ${plan.length} in ${new Set(plan.map((c) => c.file)).size} files`,
    `Rules: ${known.length}/${rules.length} would be checked (documented ${bySource('documented')}, decided ${bySource('decided')})`,
  );
  if (PROFILES[facts.profile].noSkips && running.length < plan.length) {
    lines.push(
      `Certify would refuse: ${plan.length - running.length} check(s) would be skipped, and --profile certify allows none`,
    );
  }
  if (problems.length > 0)
    lines.push('', 'Problems with the suite itself:', ...problems.map((p) => `  ${p}`));
  lines.push('Requests sent: 0 (dry run)', '');
  return lines.join('\n');
}
