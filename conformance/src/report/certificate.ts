import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ProfileName } from '../run/config.ts';
import { redactSecrets } from '../client/redact.ts';
import { chargingTests, harnessNeedsOf, plainText, skipReasons, type RunFacts } from './facts.ts';
import { RULES_PATH, type RuleSource } from '../contract/rules.ts';
import { RULE_STATUSES, type RuleResult, type RuleStatus, type Summary } from './summary.ts';
import { canonicalJson } from '../canonical-json.ts';
import { packagePath } from '../package-root.ts';

/**
 * `certificate.json` (and `certificate.html`, the same for people): what a vendor publishes
 * after `--profile certify` against its deployment (issue 15 item 5), in the manner of the
 * OpenID conformance suite's published log of a run. It names the target, the suite and the
 * exact contract (SHA-256 of spec/openapi.yaml and conformance/rules.yaml), the seed, every
 * rule's status with its reason, and the command that re-runs it with every secret a
 * placeholder; `integrity.sha256` is a SHA-256 of the canonical JSON of everything else, so an
 * edited certificate shows. A run that is not a whole, passing certify run says "not certified".
 * certificate-html.ts renders it for people.
 */
export interface Certificate {
  format: 'mailtwin-conformance-certificate';
  formatVersion: 1;
  verdict: {
    /** A whole `--profile certify` run (no `--shard`) that exited 0. */
    certified: boolean;
    /** "certified: …" or "not certified: …", as the HTML shows it. */
    text: string;
  };
  target: {
    kind: 'emulator' | 'live' | null;
    /** A live target's `{base_url}`; never a secret. */
    baseUrl: string | null;
    /** As a person reads it: the base URL, or the in-process emulator. */
    name: string;
  };
  suite: { name: 'mailtwin-conformance'; version: string | null };
  spec: { path: 'spec/openapi.yaml'; sha256: string | null };
  catalogue: { path: 'conformance/rules.yaml'; sha256: string | null };
  /** The binding the target was checked through: its name, hash and each entry's source. */
  binding: {
    name: string;
    sha256: string;
    publishedUrl: string | null;
    sources: Record<string, string>;
  } | null;
  run: {
    profile: ProfileName;
    strict: boolean;
    seed: number;
    numRuns: number;
    shard: string | null;
    /** When the run started (ISO 8601). */
    date: string | null;
    durationMs: number;
    /** HTTP requests the suite sent to the target. */
    requests: number | null;
    exitCode: 0 | 1;
  };
  counts: Record<RuleStatus, number>;
  rules: CertificateRule[];
  /** The command that re-runs this run; secrets are placeholders such as "$MAILTWIN_API_KEY". */
  rerun: string | null;
  integrity: {
    algorithm: 'sha256';
    canonicalization: string;
    /** Lowercase hex SHA-256 of `canonicalJson(certificate without integrity)`. */
    sha256: string;
  };
}

export interface CertificateRule {
  id: string;
  section: string;
  source: RuleSource;
  sentence: string;
  /** `harness`: needs the harness (a clock, faults…), which no API can give. */
  status: RuleStatus;
  /** Why it has that status, in one line: its checks, its failure, its skip, its need. */
  reason: string;
}

const CANONICALIZATION =
  'RFC 8785 (JCS): keys sorted, no whitespace; sha256 covers every field but integrity. Check: jq -jcS "del(.integrity)" certificate.json | sha256sum';

export const SPEC_PATH = packagePath('spec/openapi.yaml');

/**
 * The contract and command facts a certificate adds to a run's facts (cli/main.ts writeReports):
 * `rerun` is the command that repeats the run (cli/rerun-command.ts).
 */
export function certificateFacts(
  rerun: string,
): Required<Pick<RunFacts, 'specSha256' | 'rulesSha256' | 'rerun'>> {
  return {
    specSha256: sha256(readFileSync(SPEC_PATH)),
    rulesSha256: sha256(readFileSync(RULES_PATH)),
    rerun,
  };
}

/**
 * The certificate of a run, every string masked for `secrets` (redact.ts) before it is hashed,
 * so the masking of the report boundary (reports.ts) finds nothing left to change.
 */
export function buildCertificate(
  summary: Summary,
  facts: RunFacts,
  secrets: readonly (string | undefined)[] = [],
): Certificate {
  const body: Omit<Certificate, 'integrity'> = {
    format: 'mailtwin-conformance-certificate',
    formatVersion: 1,
    verdict: verdictOf(summary, facts),
    target: {
      kind: facts.targetKind ?? null,
      baseUrl: facts.baseUrl ?? null,
      name: facts.target,
    },
    suite: { name: 'mailtwin-conformance', version: facts.toolVersion ?? null },
    spec: { path: 'spec/openapi.yaml', sha256: facts.specSha256 ?? null },
    catalogue: { path: 'conformance/rules.yaml', sha256: facts.rulesSha256 ?? null },
    binding:
      facts.binding === undefined
        ? null
        : {
            name: facts.binding.name,
            sha256: facts.binding.sha256,
            publishedUrl: facts.binding.publishedUrl,
            sources: Object.fromEntries(facts.binding.entries.map((e) => [e.entry, e.source])),
          },
    run: {
      profile: facts.profile ?? 'full',
      strict: facts.strict ?? false,
      seed: facts.seed,
      numRuns: facts.numRuns,
      shard: facts.shard ?? null,
      date: facts.startedAt ?? null,
      durationMs: Math.round(facts.durationMs),
      requests: facts.requests ?? null,
      exitCode: summary.exitCode,
    },
    counts: Object.fromEntries(RULE_STATUSES.map((s) => [s, summary.counts[s] ?? 0])) as Record<
      RuleStatus,
      number
    >,
    rules: summary.results.map((result) => ({
      id: result.rule.id,
      section: result.rule.section,
      source: result.rule.source,
      sentence: result.rule.sentence,
      status: result.status,
      reason: reasonOf(result),
    })),
    rerun: facts.rerun ?? null,
  };
  const clean = mapStrings(body, (text) => redactSecrets(safeText(text), secrets));
  return {
    ...clean,
    integrity: {
      algorithm: 'sha256',
      canonicalization: CANONICALIZATION,
      sha256: certificateSha256(clean),
    },
  };
}

/** The SHA-256 a certificate's `integrity` must hold: of the canonical JSON of the rest. */
export function certificateSha256(certificate: object): string {
  const { integrity: _, ...rest } = certificate as { integrity?: unknown };
  return sha256(canonicalJson(rest));
}

/** Whether a parsed certificate.json is as the suite wrote it. */
export function verifyCertificate(certificate: Certificate): boolean {
  return certificate.integrity?.sha256 === certificateSha256(certificate);
}

export function formatCertificateJson(
  summary: Summary,
  facts: RunFacts,
  secrets: readonly (string | undefined)[] = [],
): string {
  return `${JSON.stringify(buildCertificate(summary, facts, secrets), null, 2)}\n`;
}

/** Why a rule has its status, in one line. */
function reasonOf(result: RuleResult): string {
  const n = result.tests.length;
  const checks = `${n} check${n === 1 ? '' : 's'}`;
  switch (result.status) {
    case 'pass':
      return `passed: ${checks}, none failed on it`;
    case 'fail':
    case 'warn': {
      const failures = chargingTests(result).map(
        (t) => `"${t.behaviour ?? t.name}": ${failureLine(t.errors) ?? 'failed'}`,
      );
      const what =
        result.status === 'fail'
          ? 'failed'
          : 'a decided rule failed (a warning; --strict makes it a failure)';
      return `${what} in ${failures.join('; ')}`;
    }
    case 'skip':
      return `skipped: ${skipReasons(result).join('; ')}`;
    case 'harness':
      return skipReasons(result).join('; ');
    case 'unchecked':
      return result.rule.untestable === undefined
        ? 'no check verifies it yet'
        : `untestable: ${result.rule.untestable}`;
  }
}

/**
 * The failure in one line: the failing assertion's message, which check.ts places after the
 * header naming the rule (`Rule broken while checking …`, the rule lines, a blank line); the
 * exchanges and replay after it stay in report.json.
 */
function failureLine(errors: readonly string[]): string | undefined {
  const lines = plainText(errors[0] ?? '').split('\n');
  const blank = lines.findIndex((line) => line.trim() === '');
  const from = lines[0]?.startsWith('Rule broken while checking') && blank > 0 ? blank : 0;
  const line = lines
    .slice(from)
    .map((l) => l.trim())
    .find((l) => l !== '');
  return line === undefined || line.length <= 300 ? line : `${line.slice(0, 299)}…`;
}

/** "certified: …" only for a whole certify run that passed; else "not certified: <why>". */
function verdictOf(summary: Summary, facts: RunFacts): Certificate['verdict'] {
  const profile = facts.profile ?? 'full';
  const harness = summary.counts.harness ?? 0;
  const needs =
    harness === 0
      ? ''
      : `; ${harness} rule${harness === 1 ? '' : 's'} left to the harness (needs ${harnessNeedsOf(summary).join(', ')}), which no API can give`;
  const warned = summary.results.filter((r) => r.status === 'warn').map((r) => r.rule.id);
  if (profile !== 'certify')
    return {
      certified: false,
      text: `not certified: a --profile ${profile} run, not --profile certify (its result: ${summary.exitCode === 0 ? 'conformant for the rules it checked' : 'NOT conformant'})`,
    };
  if (facts.shard !== undefined)
    return {
      certified: false,
      text: `not certified: one shard (--shard ${facts.shard}) of a run checks only part of the suite`,
    };
  if (summary.exitCode === 0)
    return {
      certified: true,
      text: `certified: every checked documented rule passed, nothing skipped${needs}${warned.length === 0 ? '; no warning' : `; ${warned.length} warning${warned.length === 1 ? '' : 's'} on decided rules (${warned.join(', ')})`}`,
    };
  const why: string[] = [];
  const failed = summary.results.filter((r) => r.status === 'fail').map((r) => r.rule.id);
  if (summary.nothingChecked !== undefined)
    why.push(`nothing was checked (${summary.nothingChecked})`);
  if (failed.length > 0)
    why.push(
      `${failed.length} rule${failed.length === 1 ? '' : 's'} failed (${failed.join(', ')})`,
    );
  if (summary.refusals.length > 0)
    why.push(`${summary.refusals.length} skipped check(s) or unverified rule(s)`);
  if (summary.problems.length > 0)
    why.push(`${summary.problems.length} problem(s) with the suite itself`);
  return { certified: false, text: `not certified: ${why.join('; ') || 'the run failed'}${needs}` };
}

/** `value` with `map` applied to every string in it. */
function mapStrings<T>(value: T, map: (text: string) => string): T {
  if (typeof value === 'string') return map(value) as T;
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)])) as T;
  return value;
}

/**
 * Text both JSON serialisers of the recipe write alike: no terminal colour codes, and no
 * control character but tab and newline, no DEL, no lone surrogate (jq escapes DEL, and drops
 * lone surrogates, where JSON.stringify does not).
 */
function safeText(text: string): string {
  return plainText(text)
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '\ufffd')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
