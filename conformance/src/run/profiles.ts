import {
  HARNESS_NEEDS,
  NEED_DESCRIPTIONS,
  NEEDS,
  type Need,
  type ProfileName,
  type TargetConfig,
} from './config.ts';

/** What a profile changes: run count, strictness, what it leaves out, whether a skip is allowed. */
export interface Profile {
  name: ProfileName;
  /** One line for `--help` and the reports. */
  description: string;
  /** Cases per property unless `--num-runs` says otherwise. */
  numRuns: number;
  /** Failed decided rules fail the run (as `--strict`); otherwise they warn. */
  strict: boolean;
  /**
   * A skipped check, or a rule left unverified (its check failed on another rule first), fails
   * the run, with the list of what and why. Warnings on decided rules are listed, not refused.
   */
  noSkips: boolean;
  /** Checks declaring one of these needs are left out, even on a target that offers it. */
  excludes: readonly Need[];
}

export const PROFILES: Record<ProfileName, Profile> = {
  full: {
    name: 'full',
    description: 'every check the target offers what it needs for; decided rules warn; the default',
    numRuns: 50,
    strict: false,
    noSkips: false,
    excludes: [],
  },
  quick: {
    name: 'quick',
    description: 'as full with 10 cases per property: a smoke test',
    numRuns: 10,
    strict: false,
    noSkips: false,
    excludes: [],
  },
  certify: {
    name: 'certify',
    description:
      'as full, and any failed documented rule or skipped check fails the run, but for checks only a control plane (the harness) can run, listed as needing it; decided-rule warnings are listed (--strict fails them)',
    numRuns: 50,
    strict: false,
    noSkips: true,
    excludes: [],
  },
  'read-only': {
    name: 'read-only',
    description: 'only checks that write nothing through the API (no need destructive)',
    numRuns: 50,
    strict: false,
    noSkips: false,
    excludes: ['destructive'],
  },
};

export const PROFILE_NAMES = Object.keys(PROFILES) as ProfileName[];

export function isProfileName(name: string): name is ProfileName {
  return Object.hasOwn(PROFILES, name);
}

/**
 * What a target offers among the needs, from its configuration alone (no request, no emulator
 * started), so the dry run and the workers decide alike.
 * - The control world (the in-process emulator, or a live target given --control-url) offers
 *   every need; a live one reaches the suite's webhook receiver only through --webhook-* flags.
 * - The API world (a live target without a control plane) offers what its API and the flags
 *   give: mail, built by sending to the --mailbox addresses (so only with --destructive and a
 *   mailbox), keys by role (--key), suppressed addresses (--suppressed), a receiver (--webhook-*).
 */
export function offeredNeeds(config: TargetConfig): ReadonlySet<Need> {
  if (config.kind === 'emulator') return new Set<Need>(NEEDS);
  const offers = new Set<Need>();
  const keys = config.keys ?? {};
  if (config.destructive) offers.add('destructive');
  if (config.webhook !== undefined) offers.add('webhook-receiver');
  if (config.control !== undefined) {
    for (const need of NEEDS)
      if (need !== 'webhook-receiver' && need !== 'destructive') offers.add(need);
    return offers;
  }
  if (config.destructive && config.mailboxes.length > 0) offers.add('mail');
  if (keys['other-owner'] !== undefined || config.secondApiKey !== undefined)
    offers.add('second-key');
  if (keys['one-domain'] !== undefined && keys['selected-mailbox'] !== undefined)
    offers.add('scoped-keys');
  if (keys.disabled !== undefined && keys['disabled-owner'] !== undefined)
    offers.add('disabled-keys');
  if ((config.suppressed ?? []).length > 0) offers.add('suppressed');
  return offers;
}

export type Selection = { run: true } | { run: false; reason: string };

/**
 * Whether a check with these needs runs on a target offering `offers` under `profile`, and if
 * not, why. The profile's exclusions come first: a read-only run says it left a writing check
 * out, not that the target could not have run it.
 */
export function selectCheck(
  needs: readonly Need[],
  offers: ReadonlySet<Need>,
  profile: ProfileName,
): Selection {
  const excluded = needs.filter((need) => PROFILES[profile].excludes.includes(need));
  if (excluded.length > 0) {
    return {
      run: false,
      reason: `left out by --profile ${profile}: it writes through the API (needs ${excluded.join(', ')})`,
    };
  }
  const missing = needs.filter((need) => !offers.has(need));
  if (missing.length > 0) {
    return {
      run: false,
      reason: `needs ${missing.map((need) => NEED_DESCRIPTIONS[need]).join('; ')}`,
    };
  }
  return { run: true };
}

/**
 * Whether `--profile certify` lets a skip pass: a check skipped only for needs no API can meet
 * (config.ts `HARNESS_NEEDS`: a clock, faults, crafted mail…), because the target lacks those
 * and nothing else of what it needs, and it was skipped for exactly that (its `reason` is the
 * one `selectCheck` gives, not a `--filter`, a profile's exclusion or a refusal at run time).
 * Returns the harness needs it lacked, or undefined when certify refuses the skip. The one
 * rule both the verdict (summary.ts) and the dry run's prediction (dry-run.ts) apply.
 */
export function harnessOnlySkip(
  needs: readonly Need[],
  reason: string | undefined,
  offers: ReadonlySet<Need>,
): Need[] | undefined {
  const missing = needs.filter((need) => !offers.has(need));
  if (missing.length === 0 || !missing.every((need) => HARNESS_NEEDS.has(need))) return undefined;
  // 'certify' leaves nothing out, so this is the reason a worker gives for these needs.
  const selection = selectCheck(needs, offers, 'certify');
  return !selection.run && selection.reason === reason ? missing : undefined;
}
