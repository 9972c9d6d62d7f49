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
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_NEEDS, NEED_DESCRIPTIONS } from '../../conformance/src/config.ts';
import type { JsonReport } from '../../conformance/src/report-json.ts';
import { required, startServer, type StartedServer } from '../variants/live-target.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DELAY_MS = 1500;

interface FixtureKey {
  owner: string;
  scope: string;
  secret: string;
}
const fixture = JSON.parse(readFileSync(join(ROOT, 'fixtures/demo.json'), 'utf8')) as {
  keys: FixtureKey[];
  suppressions: { address: string }[];
};
const demoKey = (owner: string, scope: string) =>
  fixture.keys.find((key) => key.owner === owner && key.scope === scope)!.secret;

// Four of the demo owner's mailboxes: checks of delivery to several recipients use four.
const MAILBOXES = [
  'hello@acme.test',
  'support@acme.test',
  'billing@acme.test',
  'maria.lopez@acme.test',
];

let server: StartedServer;
let reportDir: string;
/** The ids each mailbox listed before the run, in every folder looked at. */
const before = new Map<string, Set<string>>();
let run: { code: number | null; stdout: string; stderr: string };

/** A control-plane call, as the deployment's dashboard would make it. */
async function dashboard<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${required(server.vars, 'MAILTWIN_CONTROL_URL')}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${required(server.vars, 'MAILTWIN_CONTROL_TOKEN')}`,
      'Content-Type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Every id `mailbox` lists, unfiltered and in each folder the emulator has. */
async function listedIds(mailbox: string): Promise<Set<string>> {
  const base = required(server.vars, 'MAILTWIN_BASE_URL');
  const ids = new Set<string>();
  for (const folder of ['', 'inbox', 'sent', 'archive', 'spam', 'trash']) {
    const query = new URLSearchParams({ mailbox, limit: '100', ...(folder ? { folder } : {}) });
    const response = await fetch(`${base}/emails?${query}`, {
      headers: { Authorization: `Bearer ${demoKey('own_acme', 'follow-owner')}` },
    });
    for (const email of ((await response.json()) as { emails: { id: string }[] }).emails)
      ids.add(email.id);
  }
  return ids;
}

/** A port nothing listens on now, for the suite's webhook receiver. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  // Loopback webhooks allowed: the webhook's "public" URL is the suite's receiver on this machine.
  server = await startServer(ROOT, [
    '--delivery-delay-ms',
    String(DELAY_MS),
    '--allow-loopback-webhooks',
  ]);
  for (const mailbox of MAILBOXES) before.set(mailbox, await listedIds(mailbox));
  const disabled = await dashboard<{ id: string; secret: string }>('POST', '/keys', {
    ownerId: 'own_acme',
    name: 'Retired integration',
    scope: 'follow-owner',
  });
  await dashboard('POST', `/keys/${disabled.id}/disable`);
  const gone = await dashboard<{ id: string }>('POST', '/owners', { name: 'Former customer' });
  const goneKey = await dashboard<{ secret: string }>('POST', '/keys', {
    ownerId: gone.id,
    name: 'Former app',
    scope: 'follow-owner',
  });
  await dashboard('POST', `/owners/${gone.id}/disable`);
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}/hooks/mailtwin`;
  const webhook = await dashboard<{ id: string; secret: string }>('POST', '/webhooks', {
    ownerId: 'own_acme',
    url: publicUrl,
    scope: 'follow-owner',
  });
  reportDir = mkdtempSync(join(tmpdir(), 'mailtwin-api-world-'));
  const args = [
    join(ROOT, 'bin/mailtwin-conformance.js'),
    '--base-url',
    required(server.vars, 'MAILTWIN_BASE_URL'),
    '--key',
    `follow-owner=${demoKey('own_acme', 'follow-owner')}`,
    '--key',
    `one-domain=${demoKey('own_acme', 'one-domain')}`,
    '--key',
    `selected-mailbox=${demoKey('own_acme', 'selected-mailbox')}`,
    '--key',
    `other-owner=${demoKey('own_northwind', 'follow-owner')}`,
    '--key',
    `disabled=${disabled.secret}`,
    '--key',
    `disabled-owner=${goneKey.secret}`,
    '--webhook-listen',
    `127.0.0.1:${port}`,
    '--webhook-public-url',
    publicUrl,
    '--webhook-secret',
    webhook.secret,
    '--webhook-id',
    webhook.id,
    '--suppressed',
    fixture.suppressions[0]!.address,
    ...MAILBOXES.flatMap((mailbox) => ['--mailbox', mailbox]),
    '--destructive',
    '--max-rps',
    '0',
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
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  run = { code, stdout, stderr };
}, 600_000);

afterAll(async () => {
  await server?.stop();
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
    await dashboard('POST', '/clock', { advanceMs: DELAY_MS });
    for (const mailbox of MAILBOXES) {
      const left = [...(await listedIds(mailbox))].filter((id) => !before.get(mailbox)!.has(id));
      expect(left, `${mailbox} keeps mail the run made`).toEqual([]);
    }
  });
});
