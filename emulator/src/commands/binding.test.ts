import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadBindingFile } from '../binding/load.ts';
import { servedSpec } from '../binding/served-spec.ts';
import { UsageError } from '../cli-options.ts';
import { packagePath } from '../package-root.ts';
import { loadSpec } from '../spec.ts';
import { resolveServeBinding, runBinding } from './binding.ts';

const ROOT = packagePath('.');
const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-binding-cmd-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const variantPath = (name: string) => packagePath(`tests/variants/bindings/${name}.yaml`);

/** The document a deployment speaking the variant publishes, as a file. */
function publishedFile(name: string): string {
  const file = join(scratch, `${name}.openapi.json`);
  writeFileSync(file, JSON.stringify(servedSpec(loadSpec(), loadBindingFile(variantPath(name)))));
  return file;
}

async function run(argv: string[], fetch?: typeof globalThis.fetch, timeoutMs?: number) {
  let out = '';
  let err = '';
  const code = await runBinding(
    argv,
    (t) => (out += t),
    (t) => (err += t),
    { ...(fetch ? { fetch } : {}), ...(timeoutMs ? { timeoutMs } : {}) },
  );
  return { code, out, err };
}

describe('mailtwin binding --from', () => {
  it("prints the binding a published document implies, as YAML that reads back, with each entry's source", async () => {
    const { code, out, err } = await run(['--from', publishedFile('patch-fields')]);
    expect([code, err]).toEqual([0, '']);
    const printed = parse(out) as Record<string, any>;
    const expected = loadBindingFile(variantPath('patch-fields')) as Record<string, any>;
    expect(printed.update).toEqual(expected.update);
    expect(printed.email.read).toBe('isRead');
    expect(out).toMatch(/^ {2}read: isRead # #\/components\/schemas\/\S+$/m);
    // Every entry of every section names where it came from.
    const entries = out.split('\n').filter((line) => /^ {2}\w+:/.test(line));
    expect(entries.length).toBeGreaterThan(90);
    expect(entries.filter((line) => !/ # (#\/\S+|default)$/.test(line))).toEqual([]);
  });

  it('fetches a URL', async () => {
    const document = JSON.stringify(
      servedSpec(loadSpec(), loadBindingFile(variantPath('list-array'))),
    );
    const asked: string[] = [];
    const fetch = (async (url: string) => {
      asked.push(url);
      return new Response(document, { headers: { 'content-type': 'application/json' } });
    }) as unknown as typeof globalThis.fetch;
    const { code, out } = await run(
      ['--from', 'https://mail.example.test/openapi/openapi.json'],
      fetch,
    );
    expect(code).toBe(0);
    expect(asked).toEqual(['https://mail.example.test/openapi/openapi.json']);
    expect((parse(out) as { list: unknown }).list).toEqual({ array: 'data' });
  });

  it('gives up on a URL that does not answer in time, exit 2 naming it', async () => {
    const fetch = ((_url: string, init: RequestInit) =>
      new Promise((_resolve, reject) =>
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      )) as unknown as typeof globalThis.fetch;
    const { code, err } = await run(['--from', 'https://slow.example.test/o.json'], fetch, 50);
    expect(code).toBe(2);
    expect(err).toMatch(
      /https:\/\/slow\.example\.test\/o\.json: cannot fetch \(no answer within 50 ms\)/,
    );
  });

  it('exits 2 listing each ambiguous entry with its candidates', async () => {
    const { code, err } = await run(['--from', publishedFile('error-table')]);
    expect(code).toBe(2);
    expect(err).toMatch(/ambiguous/);
    expect(err).toMatch(/^ {2}\/errors\/\w+: one of \w+, \w+/m);
  });

  it('exits 2 without --from, or on an unreadable file', async () => {
    expect((await run([])).code).toBe(2);
    const missing = await run(['--from', join(scratch, 'none.json')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/none\.json: cannot read the file/);
  });
});

describe('the binding mailtwin serve speaks', () => {
  it('is none by default, a file with --binding, inferred with --contract', async () => {
    expect(await resolveServeBinding({ binding: null, contract: null })).toBeNull();
    const file = await resolveServeBinding({
      binding: variantPath('graph-folders'),
      contract: null,
    });
    expect(file?.binding.folders.sent).toBe('sentitems');
    const inferred = await resolveServeBinding({
      binding: null,
      contract: publishedFile('graph-folders'),
    });
    expect(inferred?.binding.folders).toEqual(file?.binding.folders);
    expect(inferred?.source).toMatch(/^inferred from .*graph-folders\.openapi\.json$/);
  });

  it('refuses an ambiguous contract with its entries, and a bad binding file naming it', async () => {
    await expect(
      resolveServeBinding({ binding: null, contract: publishedFile('error-table') }),
    ).rejects.toThrow(/ambiguous.*\n {2}\/errors\//s);
    const bad = join(scratch, 'bad.yaml');
    writeFileSync(bad, 'binding: 1\nlist: { array: "a.b" }\n');
    const refusal = resolveServeBinding({ binding: bad, contract: null });
    await expect(refusal).rejects.toBeInstanceOf(UsageError);
    await expect(refusal).rejects.toThrow(/bad\.yaml: list\.array: /);
  });
});

function mailtwin(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; kill: () => void }> {
  const child = spawn(process.execPath, ['bin/mailtwin.js', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => {
    const done = (code: number | null) => resolve({ code, stdout, stderr, kill: () => {} });
    child.once('exit', done);
    child.stdout.on('data', () => {
      if (/\nMAILTWIN_PID=\d+\n$/.test(stdout)) {
        child.off('exit', done);
        resolve({ code: null, stdout, stderr, kill: () => child.kill('SIGTERM') });
      }
    });
  });
}

describe('the command line', () => {
  it('serve --binding speaks it and says so in the banner', async () => {
    const started = await mailtwin([
      'serve',
      '--port',
      '0',
      '--no-smtp',
      '--quiet',
      '--binding',
      variantPath('list-array'),
    ]);
    try {
      expect(started.stdout).toMatch(
        /^ {2}Binding {4}list array under data \(.*list-array\.yaml\)$/m,
      );
      const vars = Object.fromEntries(
        [...started.stdout.matchAll(/^(MAILTWIN_[A-Z_]+)=(.*)$/gm)].map((m) => [m[1], m[2]]),
      );
      const res = await fetch(
        `${vars.MAILTWIN_BASE_URL}/emails?mailbox=billing@acme.test&limit=1`,
        {
          headers: { Authorization: `Bearer ${vars.MAILTWIN_API_KEY}` },
        },
      );
      expect(Object.keys((await res.json()) as object)).toEqual(['data', 'nextCursor']);
    } finally {
      started.kill();
    }
  }, 60_000);

  it('serve --contract refuses to start on an ambiguous document, exit 2; binding --help documents the command', async () => {
    const refused = await mailtwin([
      'serve',
      '--port',
      '0',
      '--no-smtp',
      '--contract',
      publishedFile('error-table'),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^mailtwin serve: --contract .*ambiguous/);
    const help = await mailtwin(['binding', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: mailtwin binding --from <url or file>');
  }, 60_000);
});
