/**
 * `--report certificate` end to end: bin/mailtwin-conformance.js in a child process against
 * the in-process emulator, a few checks selected with --filter so it stays quick (a whole
 * certify run takes about a minute here; the renderer is tested on its own in
 * report-certificate.test.ts).
 *
 * The child runs the sources (MAILTWIN_FROM_SOURCE=1), never dist/: a build in this checkout
 * while the test runs (`npm run build`, `npm run bench -- startup`, `npm pack`) deletes dist/
 * and writes it again over 20-40 s, and a compiled run caught in that window reported only
 * the check files written by then, or none (seen twice in loaded full unit runs).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCertificate, type Certificate } from '../report/certificate.ts';
import { PACKAGE_ROOT } from '../../../emulator/src/package-root.ts';

const ROOT = PACKAGE_ROOT;
const reportDir = mkdtempSync(join(tmpdir(), 'mailtwin-certificate-'));
afterAll(() => rmSync(reportDir, { recursive: true, force: true }));

const sha256 = (path: string) =>
  createHash('sha256')
    .update(readFileSync(join(ROOT, path)))
    .digest('hex');

/** The run's exit status and output, once it has ended. */
let run: { status: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/mailtwin-conformance.js'),
      ...['--filter', '1-R2', '--seed', '1', '--quiet'],
      ...['--report', 'certificate', '--report-dir', reportDir],
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', MAILTWIN_FROM_SOURCE: '1' },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  run = { status, stdout, stderr };
}, 180_000);

describe('mailtwin-conformance --report certificate', () => {
  it('writes certificate.json and certificate.html into --report-dir, and says so', () => {
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`Report: ${join(reportDir, 'certificate.json')}\n`);
    expect(run.stdout).toContain(`Report: ${join(reportDir, 'certificate.html')}\n`);
  });

  it('names the contract the run read and the command that re-runs it, and verifies', () => {
    const certificate = JSON.parse(
      readFileSync(join(reportDir, 'certificate.json'), 'utf8'),
    ) as Certificate;
    expect(certificate.spec.sha256).toBe(sha256('spec/openapi.yaml'));
    expect(certificate.catalogue.sha256).toBe(sha256('conformance/rules.yaml'));
    expect(certificate.target).toEqual({
      kind: 'emulator',
      baseUrl: null,
      name: 'the mailtwin emulator (in process)',
    });
    expect(certificate.rerun).toBe(
      `npx mailtwin-conformance --seed 1 --filter 1-R2 --report certificate --report-dir ${reportDir}`,
    );
    expect(certificate.run.requests).toBeGreaterThan(0);
    expect(certificate.rules.find((r) => r.id === '1-R2')?.status).toBe('pass');
    expect(verifyCertificate(certificate)).toBe(true);
    expect(certificate.verdict).toEqual({
      certified: false,
      text: 'not certified: a --profile full run, not --profile certify (its result: conformant for the rules it checked)',
    });
    const html = readFileSync(join(reportDir, 'certificate.html'), 'utf8');
    for (const rule of certificate.rules) expect(html).toContain(`<tr id="${rule.id}">`);
    expect(html).toContain(certificate.integrity.sha256);
  });
});
