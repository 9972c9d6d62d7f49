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
});
