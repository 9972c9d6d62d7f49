// `npm run build` writes the next dist/ to a staging folder that then takes dist/'s place whole
// (bin/build.js, installTree), so nothing running from dist/ meets a half-written tree.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module of the bin scripts, without type declarations
import { bundleEntries } from '../../bin/bundle.js';
// @ts-expect-error: as above
import { installTree } from '../../bin/compiled.js';

const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-staging-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A folder holding `files` (path → text) under `root`. */
function tree(root: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return `${root}/`;
}

describe('installTree', () => {
  it('puts the staged tree in the place of the old one and leaves neither behind', () => {
    const target = tree(join(scratch, 'dist'), { 'a.js': 'old', 'gone.js': 'old' });
    const staged = tree(join(scratch, 'next'), { 'a.js': 'new', 'b/c.js': 'new' });
    installTree(staged, target);
    expect(readFileSync(join(target, 'a.js'), 'utf8')).toBe('new');
    expect(readFileSync(join(target, 'b/c.js'), 'utf8')).toBe('new');
    expect(existsSync(join(target, 'gone.js'))).toBe(false);
    expect(existsSync(staged)).toBe(false);
    expect(existsSync(join(scratch, `dist.old-${process.pid}`))).toBe(false);
  });

  it('installs a first build where there was none', () => {
    const staged = tree(join(scratch, 'first-next'), { 'a.js': 'new' });
    const target = `${join(scratch, 'first')}/`;
    installTree(staged, target);
    expect(readFileSync(join(target, 'a.js'), 'utf8')).toBe('new');
  });
});

describe('a start-up bundle made in the staging folder', () => {
  it('finds the files beside its modules once the folder has moved to its place', async () => {
    // A module reading a file beside itself, as the emulator reads its SQL migrations.
    const staged = tree(join(scratch, 'bundle-next'), {
      'emulator/src/main.js':
        "import { readFileSync } from 'node:fs';\nexport const text = readFileSync(new URL('./beside.txt', import.meta.url), 'utf8');\n",
      'emulator/src/beside.txt': 'found',
    });
    expect(await bundleEntries(['emulator/src/main.js'], staged)).toBe(true);
    const placed = join(scratch, 'bundle-dist');
    renameSync(staged, placed);
    const bundled = (await import(
      pathToFileURL(join(placed, 'bundle/emulator-src-main.js')).href
    )) as { text: string };
    expect(bundled.text).toBe('found');
  });
});
