// Issue 30 item 4: the README's test-kit recipes (`<!-- kit-recipe: name -->`), run exactly as
// printed: eight parallel workers under vitest and under jest, each with its own tenant, none
// seeing another's mail. Each worker writes what it saw to MAILTWIN_KIT_RESULTS
// (examples/testing-kit/scenario.js); the figures are printed, and 0 sightings is required.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

function kitRecipes(): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of README.matchAll(/<!-- kit-recipe: ([\w-]+) -->\n+```sh\n([\s\S]*?)```/g)) {
    found.set(match[1]!, match[2]!);
  }
  return found;
}

interface WorkerResult {
  worker: number;
  pid: number;
  tenant: string;
  mail: string;
  seen: number;
  sightings: number;
  createdMs: number;
  waitedMs: number;
}

/** Runs a recipe with bash in the checkout; its process group is killed when it ends. */
function run(script: string, results: string): Promise<{ status: number | null; output: string }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('MAILTWIN_')),
  );
  const child = spawn('/bin/bash', ['-eu', '-o', 'pipefail', '-c', script], {
    cwd: ROOT,
    env: { ...env, NO_COLOR: '1', MAILTWIN_KIT_RESULTS: results },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) =>
    child.once('close', (status) => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
      resolve({ status, output });
    }),
  );
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

describe('the README test-kit recipes', () => {
  it('are a vitest and a jest recipe', () => {
    expect([...kitRecipes().keys()]).toEqual(['vitest', 'jest']);
  });

  it.each(['vitest', 'jest'])(
    '%s: eight parallel workers, a tenant each, 0 cross-tenant sightings',
    { timeout: 600_000 },
    async (name) => {
      const results = mkdtempSync(join(tmpdir(), `mailtwin-kit-${name}-`));
      try {
        const ran = await run(kitRecipes().get(name)!, results);
        expect(ran.status, ran.output).toBe(0);
        const workers = readdirSync(results).map(
          (file) => JSON.parse(readFileSync(join(results, file), 'utf8')) as WorkerResult,
        );
        expect(workers.map((w) => w.worker).sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        expect(new Set(workers.map((w) => w.tenant)).size).toBe(8);
        expect(new Set(workers.map((w) => w.pid)).size).toBeGreaterThan(1);
        for (const w of workers) expect(w.mail).toBe(`Welcome ${w.tenant}`);
        const sightings = workers.reduce((sum, w) => sum + w.sightings, 0);
        process.stdout.write(
          `${name}: ${workers.length} workers in ${new Set(workers.map((w) => w.pid)).size} processes, ` +
            `${workers.reduce((sum, w) => sum + w.seen, 0)} messages seen, ${sightings} cross-tenant sightings; ` +
            `tenant create as a worker saw it (loaded runner) median ${median(workers.map((w) => w.createdMs)).toFixed(1)} ms\n`,
        );
        expect(sightings).toBe(0);
      } finally {
        rmSync(results, { recursive: true, force: true });
      }
    },
  );
});
