import type { Reporter, TestCase, TestModule, TestSpecification } from 'vitest/node';
import { redactSecrets } from '../client/redact.ts';

/** One check that ended, as the progress line shows it. */
export interface FinishedCheck {
  /** Checks ended so far, this one included. */
  done: number;
  /** Checks this run will end, once every check file is collected; unknown until then. */
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
  const counter =
    check.total === undefined
      ? `[${check.done}/?]`
      : `[${String(check.done).padStart(String(check.total).length)}/${check.total}]`;
  const reason = check.state === 'skipped' && check.skipReason ? `: ${check.skipReason}` : '';
  return redactSecrets(
    `${counter} ${LABEL[check.state]} ${check.name} (${formatDuration(check.durationMs)})${reason}`,
  );
}

/** `340 ms` under a second, `1.2 s` under a minute, `4 min 05 s` beyond. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/**
 * A vitest reporter that writes one line per check as it ends (stderr by default), so a long
 * run is never silent, on a terminal or in a CI log alike. The total is the number of checks
 * the run will run or skip, known once every check file of the run is collected; a check that
 * `--filter` did not select (left out when its file is collected) is neither counted nor shown.
 */
export class ProgressReporter implements Reporter {
  private modulesExpected: number | undefined;
  private modulesCollected = 0;
  private checksInCollected = 0;
  private done = 0;

  constructor(private readonly out: { write(text: string): unknown } = process.stderr) {}

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.modulesExpected = specifications.length;
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
    const known =
      this.modulesExpected !== undefined && this.modulesCollected >= this.modulesExpected;
    this.out.write(
      `${formatProgressLine({
        done: this.done,
        total: known ? Math.max(this.checksInCollected, this.done) : undefined,
        state,
        name: test.name,
        durationMs: test.diagnostic()?.duration ?? 0,
        ...(result.state === 'skipped' && result.note !== undefined
          ? { skipReason: result.note }
          : {}),
      })}\n`,
    );
  }
}

/** A test the run will run (it may still skip itself): not left out by `--filter` or `.skip`. */
function selected(test: TestCase): boolean {
  return test.options.mode !== 'skip' && test.options.mode !== 'todo';
}
