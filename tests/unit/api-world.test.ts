/**
 * Issue 15 item 6: the suite certifies a deployment through its API alone. The emulator runs as
 * a separate process whose mail takes 1.5 s to arrive (`--delivery-delay-ms 1500`), and the
 * suite runs against it as an API world: no --control-url, the demo fixture's keys by role,
 * a disabled key and a key of a disabled owner made through the control plane as a dashboard
 * would make them, its suppressed address, two mailboxes, --destructive, and a webhook made as
 * in the dashboard whose URL leads to the suite's receiver (--webhook-*).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_NEEDS, NEED_DESCRIPTIONS } from '../../conformance/src/run/config.ts';
import type { JsonReport } from '../../conformance/src/report/json.ts';
import { API_WORLD_MAILBOXES, startApiWorld, type ApiWorld } from '../variants/api-world-target.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DELAY_MS = 1500;
/**
 * The whole run's bound, the one clock this test keeps. Its checks have no time budget
 * (MAILTWIN_CONFORMANCE_BUDGET=off): a budget is wall time, and at a load of 15 two attachment
 * checks spent their 30 s waiting on answers the target was giving the checks beside them too
 * (sends of 3 MiB among them), and were skipped as not finished, which certify refuses. Each
 * still ends on its own: every request and delivery has its time-out. The run takes 1.5-4
 * minutes.
 */
const RUN_DEADLINE_MS = 540_000;

let world: ApiWorld;
let reportDir: string;
/** The ids each mailbox listed before the run, in every folder looked at. */
const before = new Map<string, Set<string>>();
let run: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  world = await startApiWorld(ROOT, DELAY_MS);
  for (const mailbox of API_WORLD_MAILBOXES) before.set(mailbox, await world.listedIds(mailbox));
  reportDir = mkdtempSync(join(tmpdir(), 'mailtwin-api-world-'));
  const args = [
    join(ROOT, 'bin/mailtwin-conformance.js'),
    ...world.flags,
    '--seed',
    '1',
    // A live certificate: certify, with the cases of a quick run to keep npm test short.
    '--profile',
    'certify',
    '--num-runs',
    '10',
    '--strict',
    '--quiet',
    '--report',
    'console,json,certificate',
    '--report-dir',
    reportDir,
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      MAILTWIN_CONFORMANCE_BUDGET: 'off',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let stopped = false;
  const deadline = setTimeout(() => {
    stopped = true;
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  }, RUN_DEADLINE_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(deadline);
  if (stopped)
    stderr += `\nThe run had not ended after ${RUN_DEADLINE_MS / 1000} s and was stopped: with no time budgets, a check waits until its requests and deliveries end or time out, so a target that keeps answering too slowly (or a machine too loaded to run it) keeps it going.\n`;
  run = { code, stdout, stderr };
}, RUN_DEADLINE_MS + 60_000);

afterAll(async () => {
  await world?.stop();
  if (reportDir !== undefined) rmSync(reportDir, { recursive: true, force: true });
});

describe('mailtwin-conformance against a deployment through its API alone (an API world)', () => {
  it('certifies the emulator whose mail arrives 1.5 s late, with keys by role and no control plane', () => {
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^Result: certified/m);
    const certificate = JSON.parse(readFileSync(join(reportDir, 'certificate.json'), 'utf8')) as {
      verdict: { certified: boolean; text: string };
    };
    expect(certificate.verdict.certified, certificate.verdict.text).toBe(true);
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as JsonReport;
    const ran = report.checks.filter((check) => check.state !== 'skipped');
    const failed = report.checks.filter((check) => check.state === 'failed');
    // Printed for the record (the closing note quotes it), never compared with a fixed number.
    process.stdout.write(
      `API world: ${ran.length} of ${report.checks.length} checks ran, ${failed.length} failed; ` +
        `${report.rules.filter((r) => r.status === 'pass').length} rules passed\n`,
    );
    expect(failed.map((check) => check.name)).toEqual([]);
    expect(ran.length).toBeGreaterThan(0);
  });

  it('skips only what the API cannot give, saying which', () => {
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as JsonReport;
    const allowed = [...HARNESS_NEEDS].map((need) => NEED_DESCRIPTIONS[need]);
    for (const check of report.checks.filter((c) => c.state === 'skipped')) {
      const reason = check.skipReason ?? '';
      // Descriptions hold semicolons of their own: take each allowed one out, and see that
      // nothing but the separators is left.
      let rest = reason.replace(/^needs /, '');
      for (const description of allowed) rest = rest.split(description).join('');
      expect(rest.replace(/[;\s]/g, ''), `${check.name} was skipped for: ${reason}`).toBe('');
    }
  });

  it('leaves the mailboxes as it found them: no email from the run is left', async () => {
    // Mail still on its way when the run ended arrives when the clock passes its delay.
    await world.dashboard('POST', '/clock', { advanceMs: DELAY_MS });
    for (const mailbox of API_WORLD_MAILBOXES) {
      const left = [...(await world.listedIds(mailbox))].filter(
        (id) => !before.get(mailbox)!.has(id),
      );
      expect(left, `${mailbox} keeps mail the run made`).toEqual([]);
    }
  });
});
