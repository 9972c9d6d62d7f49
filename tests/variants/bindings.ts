/**
 * `npm run variants:bindings`: the suite checks an implementation that named things otherwise
 * as fully as the emulator in its own names (issue 26 item 7).
 *
 * Each binding of tests/variants/bindings/ is a deployment's other choice of names, statuses,
 * codes or folders where the service document says "not shown". The emulator speaks it
 * (`--emulator-binding` in process; `mailtwin serve --binding` reached through the API alone,
 * as tests/variants/api-world-target.ts provisions it), and the suite learns it from the
 * document the emulator publishes; where that document leaves entries ambiguous (an error
 * table with one code for several conditions), the run is refused and repeated with
 * `--binding`. Each run is compared with the default dialect's run in the same world: the
 * documented rules checked (none may be lost to a name), documented failures (none) and the
 * decided rules that warned. Prints a table, writes reports/binding-variants.md; exits 1 when a
 * variant loses a rule or fails one. Slow; not part of `npm test`.
 *
 *   npm run variants:bindings                           every binding, both worlds
 *   npm run variants:bindings -- --only sender,list-array
 *   npm run variants:bindings -- --worlds in-process    (or: api)
 *   npm run variants:bindings -- --profile quick --seed 3   (the defaults)
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { JsonReport } from '../../conformance/src/report/json.ts';
import { REPO_ROOT, runChild } from '../mutants/workspace.ts';
import { startApiWorld } from './api-world-target.ts';
import { judgeRun } from './judge.ts';

const BINDINGS_DIR = join(REPO_ROOT, 'tests/variants/bindings');
type World = 'in-process' | 'api';

interface Outcome {
  exit: number | null;
  /** How the suite came by the binding: inferred, or given after inference was refused. */
  binding: string;
  documentedChecked: Set<string>;
  documentedFailed: string[];
  warned: string[];
  problems: string[];
}

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    worlds: { type: 'string', default: 'in-process,api' },
    profile: { type: 'string', default: 'quick' },
    seed: { type: 'string', default: '3' },
  },
});
const worlds = values.worlds!.split(',') as World[];
const names = readdirSync(BINDINGS_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.slice(0, -'.yaml'.length))
  .filter((n) => values.only === undefined || values.only.split(',').includes(n));
const reportsRoot = join(REPO_ROOT, 'reports/binding-variants');
rmSync(reportsRoot, { recursive: true, force: true });

async function suite(world: World, name: string, file: string | undefined): Promise<Outcome> {
  const reportDir = join(reportsRoot, world, name);
  mkdirSync(reportDir, { recursive: true });
  const api =
    world === 'api'
      ? await startApiWorld(REPO_ROOT, 300, file ? ['--binding', file] : [])
      : undefined;
  try {
    const run = async (extra: string[]) =>
      runChild(
        [
          'bin/mailtwin-conformance.js',
          '--profile',
          values.profile!,
          '--seed',
          values.seed!,
          '--report',
          'json',
          '--report-dir',
          reportDir,
          '--quiet',
          ...(api?.flags ?? []),
          ...(world === 'in-process' && file !== undefined ? ['--emulator-binding', file] : []),
          ...extra,
        ],
        REPO_ROOT,
        30 * 60_000,
      );
    let binding = file === undefined ? 'default' : 'inferred from the published document';
    let result = await run([]);
    if (result.status === 2 && /ambiguous/.test(result.stderr) && file !== undefined) {
      const entries = (result.stderr.match(/^ {2}\/\S+/gm) ?? []).length;
      binding = `given with --binding (inference refused: ${entries} ambiguous entries)`;
      result = await run(['--binding', file]);
    }
    let report: JsonReport | undefined;
    try {
      report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as JsonReport;
    } catch {
      report = undefined;
    }
    const verdict = judgeRun(report, result.status, false, result.stderr + result.stdout);
    const documented = report?.rules.filter((r) => r.source === 'documented') ?? [];
    return {
      exit: result.status,
      binding,
      documentedChecked: new Set(
        documented.filter((r) => ['pass', 'fail', 'warn'].includes(r.status)).map((r) => r.id),
      ),
      documentedFailed: verdict.documentedFailures.map((f) => f.rule),
      warned: verdict.warned,
      problems: verdict.problems,
    };
  } finally {
    await api?.stop();
  }
}

const lines: string[] = [
  `| world | binding | how the suite got it | documented rules checked | lost to a name | documented failures | decided warnings | exit |`,
  `|---|---|---|---|---|---|---|---|`,
];
let bad = false;
for (const world of worlds) {
  const baseline = await suite(world, 'default', undefined);
  const row = (name: string, o: Outcome, lost: string[]) =>
    `| ${world} | ${name} | ${o.binding} | ${o.documentedChecked.size} | ${lost.length === 0 ? '0' : lost.join(', ')} | ${o.documentedFailed.length === 0 ? '0' : o.documentedFailed.join(', ')} | ${o.warned.join(', ') || '–'} | ${o.exit} |`;
  lines.push(row('(default)', baseline, []));
  process.stdout.write(`${lines.at(-1)}\n`);
  for (const name of names) {
    const outcome = await suite(world, name, join(BINDINGS_DIR, `${name}.yaml`));
    const lost = [...baseline.documentedChecked].filter((id) => !outcome.documentedChecked.has(id));
    if (lost.length > 0 || outcome.documentedFailed.length > 0 || outcome.exit !== 0) bad = true;
    lines.push(row(name, outcome, lost));
    process.stdout.write(`${lines.at(-1)}\n`);
    for (const problem of outcome.problems) process.stdout.write(`    ${problem.slice(0, 400)}\n`);
  }
}
mkdirSync(join(REPO_ROOT, 'reports'), { recursive: true });
writeFileSync(join(REPO_ROOT, 'reports/binding-variants.md'), `${lines.join('\n')}\n`);
process.exit(bad ? 1 : 0);
