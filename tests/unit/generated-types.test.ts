import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('generated types (spec/generated/openapi.d.ts)', () => {
  it('match what openapi-typescript generates from spec/openapi.yaml today (run `npm run generate:types`)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailtwin-types-'));
    try {
      const fresh = join(dir, 'openapi.d.ts');
      await run('node_modules/.bin/openapi-typescript', ['spec/openapi.yaml', '-o', fresh]);
      const committed = readFileSync('spec/generated/openapi.d.ts', 'utf8');
      expect(
        readFileSync(fresh, 'utf8') === committed,
        'spec/generated/openapi.d.ts is stale',
      ).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  // mailtwin/testing's types come from the control plane's contract (issue 30 item 4).
  it('spec/generated/control.d.ts matches what openapi-typescript generates from spec/control.yaml today', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailtwin-types-'));
    try {
      const fresh = join(dir, 'control.d.ts');
      await run('node_modules/.bin/openapi-typescript', ['spec/control.yaml', '-o', fresh]);
      const committed = readFileSync('spec/generated/control.d.ts', 'utf8');
      expect(
        readFileSync(fresh, 'utf8') === committed,
        'spec/generated/control.d.ts is stale: run `npm run generate:types`',
      ).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
