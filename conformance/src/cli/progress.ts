import type { Reporter, TestCase, TestModule, TestSpecification } from 'vitest/node';
import { printable } from '../client/printable.ts';
import { redactSecrets } from '../client/redact.ts';

/** One check that ended, as the progress line shows it. */
export interface FinishedCheck {
  /** Checks ended so far, this one included. */
  done: number;
  /** Checks this run will end: planned from the start, else unknown until every file is collected. */
  total: number | undefined;
  state: 'passed' | 'failed' | 'skipped';
  name: string;
  durationMs: number;
  skipReason?: string;
}

const LABEL = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;

/**
 * `[12/92] PASS 4.1-R1: lists the mailboxes (1.2 s)`: the counter first (`[12/?]` while the
 * total is unknown), then the result, the check's name and its duration; a skip adds its reason.
 */
export function formatProgressLine(check: FinishedCheck): string {
  const reason = check.state === 'skipped' && check.skipReason ? `: ${check.skipReason}` : '';
  return safe(
    `${counter(check.done, check.total)} ${LABEL[check.state]} ${check.name} (${formatDuration(check.durationMs)})${reason}`,
  );
}

/**
 * Skips that ended one after the other for the same reason, on one line: `[ 3-9/113] SKIP 7
 * checks: <reason>` (issue 27 item 11: a read-only run skipped 81 checks for one reason, a
 * line each). Each check is in the report; the progress says how many and why.
 */
export function formatSkipGroupLine(group: {
  first: number;
  last: number;
  total: number | undefined;
  reason: string;
}): string {
  const checks = group.last - group.first + 1;
  const total = group.total === undefined ? '?' : String(group.total);
  return safe(`[${group.first}-${group.last}/${total}] SKIP ${checks} checks: ${group.reason}`);
}

function counter(done: number, total: number | undefined): string {
  return total === undefined
    ? `[${done}/?]`
    : `[${String(done).padStart(String(total).length)}/${total}]`;
}

/** No secret, and no control character (a name may quote a generated value). */
function safe(line: string): string {
  return printable(redactSecrets(line));
}

/** `340 ms` under a second, `1.2 s` under a minute, `4 min 05 s` beyond. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** A skip not yet printed, with the ones after it that ended for the same reason. */
interface PendingSkip {
  check: FinishedCheck;
  last: number;
  reason: string;
}

/**
 * A vitest reporter that writes one line per check as it ends (stderr by default), so a long
 * run is never silent, on a terminal or in a CI log alike. Skips that end one after another
 * for the same reason share one line, written when the next check ends differently (or the run
 * ends). The total is the number of checks the run will run or skip: from the start when the
 * caller planned them (`planned`, the checks of each file as the dry run counts them, by
 * absolute path), else once every check file of the run is collected, and then from vitest's
 * own count; a check that `--filter` did not select is neither counted nor shown.
 */
export class ProgressReporter implements Reporter {
  private modulesExpected: number | undefined;
  private modulesCollected = 0;
  private checksInCollected = 0;
  private plannedTotal: number | undefined;
  private done = 0;
  private pending: PendingSkip | undefined;

  constructor(
    private readonly out: { write(text: string): unknown } = process.stderr,
    private readonly planned?: ReadonlyMap<string, number>,
  ) {}

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.modulesExpected = specifications.length;
    const counts = specifications.map((s) => this.planned?.get(s.moduleId));
    this.plannedTotal = counts.every((n) => n !== undefined)
      ? counts.reduce<number>((sum, n) => sum + n!, 0)
      : undefined;
  }

  onTestModuleCollected(module: TestModule): void {
    this.modulesCollected += 1;
    for (const test of module.children.allTests()) if (selected(test)) this.checksInCollected += 1;
  }

  onTestCaseResult(test: TestCase): void {
    if (!selected(test)) return;
    this.done += 1;
    const result = test.result();
    const state =
      result.state === 'failed' ? 'failed' : result.state === 'passed' ? 'passed' : 'skipped';
    const check: FinishedCheck = {
      done: this.done,
      total: this.total(),
      state,
      name: test.name,
      durationMs: test.diagnostic()?.duration ?? 0,
      ...(result.state === 'skipped' && result.note !== undefined
        ? { skipReason: result.note }
        : {}),
    };
    if (state === 'skipped') {
      const reason = check.skipReason ?? '';
      if (this.pending !== undefined && this.pending.reason === reason) {
        this.pending.last = this.done;
        return;
      }
      this.flush();
      this.pending = { check, last: this.done, reason };
      return;
    }
    this.flush();
    this.out.write(`${formatProgressLine(check)}\n`);
  }

  onTestRunEnd(): void {
    this.flush();
  }

  private total(): number | undefined {
    const collected =
      this.modulesExpected !== undefined && this.modulesCollected >= this.modulesExpected;
    if (collected) return Math.max(this.checksInCollected, this.done);
    return this.plannedTotal === undefined ? undefined : Math.max(this.plannedTotal, this.done);
  }

  private flush(): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    this.out.write(
      `${
        pending.last === pending.check.done
          ? formatProgressLine(pending.check)
          : formatSkipGroupLine({
              first: pending.check.done,
              last: pending.last,
              total: this.total(),
              reason: pending.reason,
            })
      }\n`,
    );
  }
}

/** A test the run will run (it may still skip itself): not left out by `--filter` or `.skip`. */
function selected(test: TestCase): boolean {
  return test.options.mode !== 'skip' && test.options.mode !== 'todo';
}
