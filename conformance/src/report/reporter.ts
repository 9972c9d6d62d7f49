import type { Reporter, TestModule, TestRunEndReason } from 'vitest/node';
import type { TestOutcome } from './summary.ts';

/**
 * A vitest reporter that collects each test's rules, state, failure messages and the rules its
 * failure was charged to, and every check file that failed to load or never ran, for the
 * per-rule summary. A run vitest ended early is a problem of the suite, never a verdict on the
 * target: without it, the checks it never reached would read as "not selected" or absent.
 */
export class RuleCollector implements Reporter {
  readonly outcomes: TestOutcome[] = [];
  readonly problems: string[] = [];
  /** The check files (absolute paths) vitest reported on. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly root: string,
    /** Why a test without a note was skipped (e.g. it did not match --filter). */
    private readonly defaultSkipReason = 'skipped',
    /**
     * The name a report gives a check file from its path under `root` (cli/suite-files.ts
     * `sourceNameOf`: a compiled file is named after its source); unchanged by default.
     */
    private readonly nameOf: (relativePath: string) => string = (path) => path,
  ) {}

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<unknown>,
    reason?: TestRunEndReason,
  ): void {
    if (reason === 'interrupted')
      this.problems.push('the run was interrupted: vitest ended it before every check had run');
    for (const module of testModules) {
      this.reported.add(module.moduleId);
      const file = this.fileOf(module.moduleId);
      const errors = module.errors();
      for (const error of errors) this.problems.push(`${file} did not load: ${error.message}`);
      // A check file always declares checks: one that reports none was never run.
      if (errors.length === 0 && module.children.allTests().next().done === true)
        this.problems.push(`${file} did not run (vitest left it ${module.state()})`);
      for (const test of module.children.allTests()) {
        const result = test.result();
        const meta = test.meta();
        const state =
          result.state === 'failed' ? 'failed' : result.state === 'passed' ? 'passed' : 'skipped';
        // Rules a passing check could not reach on this target (check.ts `unchecked`): they
        // are reported as a skipped part of the check, with the need that was missing.
        const part = state === 'passed' ? meta.unchecked : undefined;
        if (part !== undefined)
          this.outcomes.push({
            name: `${test.name} [the part that needs ${part.needs.join(', ')}]`,
            file,
            rules: [...part.rules],
            ...(meta.behaviour === undefined ? {} : { behaviour: meta.behaviour }),
            needs: [...part.needs],
            state: 'skipped',
            skipReason: part.reason,
            errors: [],
          });
        this.outcomes.push({
          name: test.name,
          file,
          rules: (meta.rules ?? []).filter((id) => !(part?.rules.includes(id) ?? false)),
          ...(meta.behaviour === undefined ? {} : { behaviour: meta.behaviour }),
          needs: meta.needs ?? [],
          state,
          requests: meta.requests ?? 0,
          cases: meta.cases ?? 0,
          ...(meta.uploads === undefined ? {} : { uploads: [...meta.uploads] }),
          durationMs: test.diagnostic()?.duration ?? 0,
          ...(meta.waitedMs === undefined ? {} : { waitedMs: meta.waitedMs }),
          ...(result.state === 'skipped'
            ? { skipReason: result.note ?? this.defaultSkipReason }
            : {}),
          errors: (result.errors ?? []).map((e) => e.message ?? String(e)),
          // The rules a failure was charged to (check.ts); absent: charged to none, so to all.
          ...(state === 'failed' && meta.chargedRules !== undefined
            ? { chargedRules: [...meta.chargedRules] }
            : {}),
          ...(state === 'failed' && meta.completed === true ? { completed: true } : {}),
        });
      }
    }
    for (const error of unhandledErrors)
      this.problems.push(`unhandled error: ${String((error as Error)?.message ?? error)}`);
  }

  /** Notes each of `paths` (absolute check files the run took) that vitest never reported on. */
  expectFiles(paths: readonly string[]): void {
    for (const path of paths)
      if (!this.reported.has(path)) this.problems.push(`${this.fileOf(path)} did not run`);
  }

  private fileOf(moduleId: string): string {
    return moduleId.startsWith(this.root)
      ? this.nameOf(moduleId.slice(this.root.length + 1))
      : moduleId;
  }
}
