// Issue 18 item 2: `npm run build` bundles the emulator's entry (bin/bundle.js) and
// bin/mailtwin.js runs that bundle while dist/ is current (bin/compiled.js).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BUNDLE_DIR,
  bundledModule,
  compiledEntry,
  compiledModule,
  sourceFiles,
  sourcesFingerprint,
  sourcesHash,
  stampAfterBuild,
  // @ts-expect-error: a plain JavaScript module of the bin scripts, without type declarations
} from '../../bin/compiled.js';

const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-bundle-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('which start-up bundle bin/mailtwin.js runs', () => {
  it("runs the entry's bundle when the build made one, and the modules of dist/ when not", () => {
    const dir = `${join(scratch, 'bundle')}/`;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'emulator-src-main.js'), '');
    expect(bundledModule('emulator/src/main.js', dir)).toBe(`${dir}emulator-src-main.js`);
    expect(bundledModule('conformance/src/cli/main.js', dir)).toBeUndefined();
    expect(bundledModule('emulator/src/main.js', `${join(scratch, 'none')}/`)).toBeUndefined();
  });

  it('ends a build with a fingerprint when an edit just before it left none, the content unchanged', () => {
    const files = sourceFiles();
    const hash = sourcesHash(files);
    const later = Date.now() + 60_000; // no file is then touched within the racy moment
    expect(stampAfterBuild(`${hash}\n\n`, files, later)).toBe(
      `${hash}\n${sourcesFingerprint(files)}\n`,
    );
    // Sources edited during the build: the stamp stays that of what was compiled.
    expect(stampAfterBuild('0123\n\n', files, later)).toBe('0123\n\n');
  });

  it('counts the lockfile among what dist/ is made from: another version installed makes it stale', () => {
    // The bundle copies hono in and the build's outputs come from yaml and mailparser.
    expect(sourceFiles()).toContain('package-lock.json');
  });
});

describe('the bundle npm run build made', () => {
  const built = compiledModule('emulator/src/main.js') !== undefined;

  it('exists for the emulator, since dist/ is current (npm test builds it first)', () => {
    expect(built, 'dist/ is older than the sources: run `npm run build`').toBe(true);
    expect(bundledModule('emulator/src/main.js')).toBe(`${BUNDLE_DIR}emulator-src-main.js`);
  });

  it('is what bin/mailtwin.js runs, while the conformance CLI, which has none, runs its module', () => {
    expect(compiledEntry('emulator/src/main')).toBe(`${BUNDLE_DIR}emulator-src-main.js`);
    expect(compiledEntry('conformance/src/cli/main')).toMatch(
      /\/dist\/conformance\/src\/cli\/main\.js$/,
    );
  });

  it('keeps what it loads on demand in chunks of their own, each named by its content', () => {
    const chunks = readdirSync(BUNDLE_DIR).filter((file: string) => file.endsWith('.js'));
    expect(chunks).toContain('emulator-src-main.js');
    for (const lazy of ['dashboard', 'markdown', 'smtp-ingress'])
      expect(
        chunks.some((file: string) => new RegExp(`^${lazy}-[A-Z0-9]{8}\\.js$`).test(file)),
      ).toBe(true);
  });

  it('copies hono in and imports the other packages from node_modules', () => {
    const files = readdirSync(BUNDLE_DIR).filter((file: string) => file.endsWith('.js'));
    const code = files
      .map((file: string) => readFileSync(join(BUNDLE_DIR, file), 'utf8'))
      .join('\n');
    // An import may span lines: `import {\n  a,\n  b\n} from "x";`.
    expect(code).not.toMatch(/^import\b[^;]*?\bfrom ["'](hono|@hono\/node-server)\b/m);
    expect(code).toMatch(/^import\b[^;]*?\bfrom ["']better-sqlite3["']/m);
  });

  it('gives each module the URL of its own compiled file, so what it reads beside itself is found', () => {
    const files = readdirSync(BUNDLE_DIR).filter((file: string) => file.endsWith('.js'));
    const own = files.flatMap((file: string) =>
      [
        ...readFileSync(join(BUNDLE_DIR, file), 'utf8').matchAll(
          /new URL\("([^"]+)", import\.meta\.url\)/g,
        ),
      ].map((match) => match[1] as string),
    );
    // package-root, prebuilt, spec, json-schema, docs and the migrations' database, at least.
    expect(own.length).toBeGreaterThanOrEqual(6);
    const everyUse = files.flatMap((file: string) => [
      ...readFileSync(join(BUNDLE_DIR, file), 'utf8').matchAll(/import\.meta\b/g),
    ]);
    expect(everyUse).toHaveLength(own.length);
    for (const path of own) {
      // The emulator's own modules, and the suite's that `mailtwin binding` reads a published
      // document with (binding/infer.ts and what it reads beside itself, its package root).
      expect(path, path).toMatch(/^\.\.\/(emulator|conformance)\/src\/.+\.js$/);
      expect(existsSync(fileURLToPath(new URL(path, `file://${BUNDLE_DIR}`))), path).toBe(true);
    }
  });
});
