// One-line CI start (issue 30 item 5): `mailtwin serve --port 0 --ready-file <path>` writes the
// file once it answers, with what a client in any language needs, and removes it on stop;
// `GET /readyz` answers 200 without credentials.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseServeOptions } from './cli-options.ts';
import { createApp } from './app.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mailtwin-ready-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves once `check` holds, looking every 20 ms; fails after `ms` (a hang guard only). */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('--ready-file and /readyz', () => {
  it('parses --ready-file to an absolute path, and none by default', () => {
    const options = parseServeOptions(['--ready-file', 'run/ready.json'], '/work/x');
    expect(options !== 'help' && options.readyFile).toBe('/work/x/run/ready.json');
    const plain = parseServeOptions([], '/work/x');
    expect(plain !== 'help' && plain.readyFile).toBeNull();
  });

  it('answers GET /readyz with 200 and no key', async () => {
    const answer = await createApp().request('http://127.0.0.1/readyz');
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ status: 'ready' });
  });

  it(
    'writes the ready file once serving on the port it picked, and removes it on stop',
    { timeout: 120_000 },
    async () => {
      const path = join(dir, 'ready.json');
      const child = spawn(
        process.execPath,
        ['bin/mailtwin.js', 'serve', '--port', '0', '--no-smtp', '--ready-file', path],
        { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        await until(() => existsSync(path) || child.exitCode !== null, 90_000, 'the ready file');
        expect(existsSync(path), stderr).toBe(true);
        const info = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
        expect(info).toMatchObject({ pid: child.pid, smtpUrl: null });
        expect(info.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(info.baseUrl).toBe(`${info.origin}/openapi/v1`);
        expect((await fetch(`${info.origin}/readyz`)).status).toBe(200);
        const tenants = await fetch(`${info.controlUrl}/tenants`, {
          headers: { Authorization: `Bearer ${info.controlToken}` },
        });
        expect(tenants.status).toBe(200);
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
      expect(existsSync(path)).toBe(false);
    },
  );
});
