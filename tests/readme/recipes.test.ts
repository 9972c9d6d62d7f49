// Issue 17 item 6: the README's recipes, one per user, run exactly as printed. Each block marked
// `<!-- recipe: name -->` is handed to bash as it stands, in the checkout, and must end well
// and print what the README promises; a block renamed, dropped or added fails the count.
// Issue 27 item 8: what a recipe prints on stdout is held to the sample after it (`<!-- output:
// name -->`, placeholders in sample-output.ts), and a recipe stops, naming it, when a tool it
// needs beside the install is missing.
// Issue 29 item 4: the README keeps one recipe per user and the reference moved to docs/; a
// recipe or sample there (the deployment's names in docs/serve.md, a filtered run's end in
// docs/reports.md) is run and held to its sample the same way.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleBlocks, sampleMismatch } from './sample-output.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The README and every page of docs/, by path. */
const PAGES = new Map(
  [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ].map((path) => [path, readFileSync(join(ROOT, path), 'utf8')]),
);
/** What the recipes write beside the checkout (both gitignored), removed after the run. */
const WRITTEN = ['conformance-report', 'certificate'];

/** The recipes of one page, by name, in the order the page gives them. */
function recipesOf(page: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of PAGES.get(page)!.matchAll(
    /<!-- recipe: ([\w-]+) -->\n+```sh\n([\s\S]*?)```/g,
  )) {
    found.set(match[1]!, match[2]!);
  }
  return found;
}

/** Every recipe of the README and docs/, by name. */
function recipes(): Map<string, string> {
  return new Map([...PAGES.keys()].flatMap((page) => [...recipesOf(page)]));
}

/** Every sample output of the README and docs/, by name. */
function samples(): Map<string, string> {
  return new Map([...PAGES.values()].flatMap((text) => [...sampleBlocks(text)]));
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a recipe with `bash -eu -o pipefail` in its own process group, with none of the caller's
 * MAILTWIN_* variables; whatever it leaves running (its emulator, if it failed before `kill`)
 * is killed with the group at the end.
 */
function runRecipe(
  script: string,
  timeoutMs: number,
  extraEnv: Record<string, string> = {},
): Promise<Ran> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MAILTWIN_')),
  );
  const child = spawn('/bin/bash', ['-eu', '-o', 'pipefail', '-c', script], {
    cwd: ROOT,
    env: { ...env, NO_COLOR: '1', ...extraEnv },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  };
  const timer = setTimeout(killGroup, timeoutMs);
  // 'exit', not 'close': a server the recipe left running still holds the output pipes open.
  return new Promise((resolve) => {
    child.once('exit', (status) => {
      clearTimeout(timer);
      killGroup();
      setImmediate(() => resolve({ status, stdout, stderr }));
    });
  });
}

/** Fails with the first line where the README's sample for `name` and the run part ways. */
function expectSample(name: string, stdout: string): void {
  const sample = samples().get(name);
  expect(sample, `no page has a <!-- output: ${name} --> block`).toBeDefined();
  const mismatch = sampleMismatch(sample!, stdout);
  expect(mismatch, mismatch).toBeUndefined();
}

afterAll(() => {
  for (const dir of WRITTEN) rmSync(join(ROOT, dir), { recursive: true, force: true });
});

describe('the README recipes', () => {
  it('are three in the README, one per user, and one more in docs/serve.md, each followed by the output it prints', () => {
    expect([...recipesOf('README.md').keys()]).toEqual(['client-developer', 'ci', 'vendor']);
    expect([...recipesOf('docs/serve.md').keys()]).toEqual(['their-names']);
    expect([...recipes().keys()].sort()).toEqual([
      'ci',
      'client-developer',
      'their-names',
      'vendor',
    ]);
    expect([...samples().keys()]).toEqual(
      expect.arrayContaining(['client-developer', 'their-names', 'ci', 'vendor', 'filtered-run']),
    );
  });

  it.each(['client-developer', 'their-names', 'ci', 'vendor'])(
    '%s: stops first, naming it, when a tool it needs is missing',
    async (name) => {
      // A PATH with curl alone: the recipe must say it needs jq and stop before starting anything.
      const bin = mkdtempSync(join(tmpdir(), 'mailtwin-recipe-path-'));
      try {
        symlinkSync('/usr/bin/curl', join(bin, 'curl'));
        const ran = await runRecipe(recipes().get(name)!, 30_000, { PATH: bin });
        expect(ran.status).toBe(1);
        expect(ran.stderr.trim()).toBe('this recipe needs jq: install it first');
        expect(ran.stdout).toBe('');
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    },
  );

  it('client developer: sends and reads mail, then mail arrives over SMTP and from trigger', async () => {
    const ran = await runRecipe(recipes().get('client-developer')!, 120_000);
    expect(ran.status, ran.stderr).toBe(0);
    const lines = ran.stdout.trim().split('\n');
    expect(ran.stdout).toMatch(/^\{"id":"\w+","folder":"sent","subject":"Order 1042 shipped"\}$/m);
    expect(lines).toContain('Order 1042 shipped'); // found by q=1042 in the recipient's inbox
    expect(ran.stdout).toMatch(
      /^email\.received: \S+ in hello@acme\.test \("Order 1043 returned"\)$/m,
    );
    // Newest first: the triggered email, then the one that came over SMTP.
    expect(lines.slice(-2)).toEqual(['Order 1043 returned', 'Invoice 77']);
    expectSample('client-developer', ran.stdout);
  }, 150_000);

  it("their names: an emulator started from a deployment's published document speaks its names", async () => {
    const ran = await runRecipe(recipes().get('their-names')!, 120_000);
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^ {2}array: data # /m);
    expect(ran.stdout).toMatch(/^\{"isRead":true,"flagged":true\}$/m);
    expect(ran.stdout).toMatch(/^\{"code":"unknown_field","field":"read"\}$/m);
    expectSample('their-names', ran.stdout);
  }, 150_000);

  it('CI: the emulator answers the banner key, and the read-only suite finds it conformant with a JUnit file', async () => {
    const ran = await runRecipe(recipes().get('ci')!, 300_000);
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stdout).toMatch(/^200$/m);
    expect(ran.stdout).toMatch(/^Result: conformant/m);
    expect(Number(ran.stdout.trim().split('\n').at(-1))).toBeGreaterThan(50);
    expectSample('ci', ran.stdout);
  }, 330_000);

  it('a filtered run ends as the sample in docs/reports.md shows, Result last', async () => {
    const ran = await runRecipe(
      "npx mailtwin-conformance --filter 'pages 25 by default' --seed 1",
      120_000,
    );
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expectSample('filtered-run', ran.stdout);
  }, 150_000);

  it('vendor: certify through the API, with what a dashboard makes, is certified and its certificate hash recomputes', async () => {
    const ran = await runRecipe(recipes().get('vendor')!, 600_000);
    expect(ran.status, `${ran.stdout.slice(-3000)}\n${ran.stderr.slice(-2000)}`).toBe(0);
    const [verdict, recomputed, recorded] = ran.stdout.trim().split('\n').slice(-3);
    expect(verdict).toMatch(/^certified/);
    expect(recomputed).toMatch(/^[0-9a-f]{64}$/);
    expect(recomputed).toBe(recorded);
    expectSample('vendor', ran.stdout);
  }, 630_000);
});
