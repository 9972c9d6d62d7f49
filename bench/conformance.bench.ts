import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ms } from './measure.ts';

const BIN = fileURLToPath(new URL('../bin/mailtwin-conformance.js', import.meta.url));

/** Wall time of one CLI run, from process start to exit, and its exit code. */
function timedRun(args: string[]): { wallMs: number; code: number | null } {
  const started = performance.now();
  const run = spawnSync(process.execPath, [BIN, ...args], { stdio: 'ignore' });
  return { wallMs: performance.now() - started, code: run.status };
}

/**
 * The suite's own speed against the in-process emulator: the dry run, quick against full in the
 * same run (issue 13: quick was 104.8 s against full's 101.8 s, the dry run 10 s), and certify.
 */
export async function benchConformance(print: (line: string) => void): Promise<void> {
  const dry = timedRun(['--dry-run', '--seed', '1']);
  print(`mailtwin-conformance --dry-run: ${ms(dry.wallMs)} (exit ${dry.code}; goal < 3 s)`);
  const quick = timedRun(['--profile', 'quick', '--seed', '1']);
  const full = timedRun(['--profile', 'full', '--seed', '1']);
  print(`--profile quick: ${ms(quick.wallMs)} (exit ${quick.code})`);
  print(`--profile full: ${ms(full.wallMs)} (exit ${full.code})`);
  print(`quick / full: ${(quick.wallMs / full.wallMs).toFixed(2)} (goal ≤ 0.33)`);
  // What `npm test` runs (test:conformance): every check, none skipped (issue 18 item 5).
  const certify = timedRun(['--profile', 'certify', '--strict', '--seed', '1']);
  print(
    `--profile certify --strict: ${ms(certify.wallMs)} (exit ${certify.code}; target ≤ 60 s on an idle machine)`,
  );
}
