import { NEEDS, type Need, type ProfileName } from '../run/config.ts';
import { PROFILES, harnessOnlySkip, selectCheck, type Selection } from '../run/profiles.ts';
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
  /**
   * A skip `--profile certify` lets pass (profiles.ts `harnessOnlySkip`, as the verdict
   * decides): the needs only the harness meets that the target lacks. Only under a profile
   * that allows no skip.
   */
  harness?: Need[];
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
    const selection: Selection =
      filter !== undefined && !check.name.includes(filter)
        ? { run: false, reason: NOT_SELECTED_BY_FILTER }
        : selectCheck(check.needs, offers, profile);
    const harness =
      selection.run || !PROFILES[profile].noSkips
        ? undefined
        : harnessOnlySkip(check.needs, selection.reason, offers);
    return harness === undefined ? { ...check, selection } : { ...check, selection, harness };
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
    if (!check.selection.run)
      lines.push(
        `       skipped: ${check.selection.reason}${check.harness === undefined ? '' : ' (certify leaves it to the harness)'}`,
      );
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
  if (PROFILES[facts.profile].noSkips) {
    // The verdict's own rule (profiles.ts harnessOnlySkip): a skip only for what no API gives
    // is left to the harness, not refused.
    const skipped = plan.filter((c) => !c.selection.run);
    const refused = skipped.filter((c) => c.harness === undefined).length;
    const harness = skipped.length - refused;
    if (harness > 0) {
      const needs = NEEDS.filter((need) => skipped.some((c) => c.harness?.includes(need)));
      lines.push(
        `Certify allows ${harness} skipped check(s): each lacks only what the harness gives (${needs.join(', ')}), and its rules are listed as needing the harness`,
      );
    }
    const left = documentedLeftToHarness(plan, rules);
    if (left.length > 0)
      lines.push(
        `Documented rules left to the harness (${left.length}): no running check reaches them, and only what the harness gives would`,
        ...left.map(
          ({ rule, needs }) => `  ${rule.id} (§${rule.section}): needs ${needs.join(', ')}`,
        ),
      );
    if (refused > 0)
      lines.push(
        `Certify would refuse: ${refused} check(s) would be skipped, and --profile certify allows no skip but for what only the harness gives`,
      );
  }
  if (problems.length > 0)
    lines.push('', 'Problems with the suite itself:', ...problems.map((p) => `  ${p}`));
  lines.push('Requests sent: 0 (dry run)', '');
  return lines.join('\n');
}

export interface LeftToHarness {
  rule: Rule;
  /** What the target lacks, in every check that would reach the rule. */
  needs: Need[];
}

/**
 * Documented rules that no running check reaches and a check the harness would run does: the
 * list issue 28 asks a vendor's dry run to print, so what the API alone leaves out is visible.
 * A rule's needs are the fewest missing ones among the checks that would reach it.
 */
export function documentedLeftToHarness(plan: PlannedCheck[], rules: Rule[]): LeftToHarness[] {
  const running = new Set(plan.filter((c) => c.selection.run).flatMap((c) => c.rules));
  const left: LeftToHarness[] = [];
  for (const rule of rules) {
    if (rule.source !== 'documented' || running.has(rule.id)) continue;
    const reaching = plan.filter((c) => c.harness !== undefined && c.rules.includes(rule.id));
    if (reaching.length === 0) continue;
    const fewest = reaching
      .map((c) => c.harness ?? [])
      .reduce((best, needs) => (needs.length < best.length ? needs : best));
    left.push({ rule, needs: fewest });
  }
  return left;
}
