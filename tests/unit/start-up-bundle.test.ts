// Issue 18 item 2: `npm run build` bundles the emulator's entry (bin/bundle.js) and
// bin/mailtwin.js runs that bundle only while it matches what is installed (bin/compiled.js).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module of the bin scripts, without type declarations
import { BUNDLE_DIR, bundledModule, compiledEntry, compiledModule } from '../../bin/compiled.js';

const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-bundle-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A bundle folder beside a node_modules holding `hono` at `installed`. */
function fakeBundle(name: string, manifest: unknown, installed: string): string {
  const root = join(scratch, name);
  mkdirSync(join(root, 'node_modules/hono'), { recursive: true });
  writeFileSync(
    join(root, 'node_modules/hono/package.json'),
    JSON.stringify({ version: installed }),
  );
  mkdirSync(join(root, 'dist/bundle'), { recursive: true });
  if (manifest !== undefined) {
    writeFileSync(join(root, 'dist/bundle/manifest.json'), JSON.stringify(manifest));
  }
  return `${join(root, 'dist/bundle')}/`;
}

const MANIFEST = {
  entries: { 'emulator/src/main.js': 'emulator-src-main.js' },
  inlined: { hono: '4.1.0' },
};

describe('which start-up bundle bin/mailtwin.js runs', () => {
  it('runs the bundle while the packages copied into it are the versions installed', () => {
    const dir = fakeBundle('current', MANIFEST, '4.1.0');
    expect(bundledModule('emulator/src/main.js', dir)).toBe(`${dir}emulator-src-main.js`);
  });

  it('runs the modules of dist/ once an inlined package was installed in another version', () => {
    const dir = fakeBundle('upgraded', MANIFEST, '4.2.0');
    expect(bundledModule('emulator/src/main.js', dir)).toBeUndefined();
  });

  it('runs the modules of dist/ when there is no bundle, or none for that entry', () => {
    expect(bundledModule('emulator/src/main.js', fakeBundle('none', undefined, '4.1.0'))).toBe(
      undefined,
    );
    const dir = fakeBundle('other-entry', MANIFEST, '4.1.0');
    expect(bundledModule('conformance/src/cli/main.js', dir)).toBeUndefined();
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
    // package-root, disk-memo, json-schema, yaml-cache, docs and the migrations' database.
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
