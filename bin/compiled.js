// Whether dist/ (compiled by `npm run build`, which `npm ci` runs as `prepare` and `npm pack`
// runs before packing) was built from exactly the sources in the tree now: a SHA-256 over the
// compiled folders (tests aside) and the tsconfig files, taken before compiling and kept in
// dist/.sources-sha256. Content, not times, so an edit, a checkout or a copy of the tree can
// never run stale code. An installed package ships dist/ without the TypeScript sources: there
// the compiled code is all there is, and it is used as is.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const DIST = `${ROOT}dist/`;
export const STAMP = `${DIST}.sources-sha256`;
/** The folders `npm run build` compiles (tsconfig.build.json), each mirrored under dist/. */
export const SOURCE_DIRS = ['emulator/src', 'conformance/src', 'conformance/checks'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];

/** The hash of what dist/ is made from (about 30 ms for ~250 files). */
export function sourcesHash() {
  const hash = createHash('sha256');
  const walk = (dir) => {
    const entries = readdirSync(`${ROOT}${dir}`, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (!entry.name.endsWith('.test.ts')) {
        hash
          .update(`${path}\0`)
          .update(readFileSync(`${ROOT}${path}`))
          .update('\0');
      }
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  for (const config of CONFIGS) {
    if (existsSync(`${ROOT}${config}`))
      hash.update(`${config}\0`).update(readFileSync(`${ROOT}${config}`));
  }
  return hash.digest('hex');
}

/** Whether this is an installed package: compiled code, no TypeScript sources beside it. */
export function isInstalledPackage() {
  return existsSync(STAMP) && !SOURCE_DIRS.some((dir) => existsSync(`${ROOT}${dir}`));
}

/**
 * The compiled module at `path` under dist/ (e.g. `emulator/src/main.js`) when dist is current,
 * else undefined (the caller then runs the sources through tsx).
 */
export function compiledModule(path) {
  if (isInstalledPackage()) return `${DIST}${path}`;
  if (process.env.MAILTWIN_FROM_SOURCE === '1' || !existsSync(STAMP)) return undefined;
  return readFileSync(STAMP, 'utf8').trim() === sourcesHash() ? `${DIST}${path}` : undefined;
}

/**
 * The `main` of a bin script's entry (`emulator/src/main`, say, without extension): compiled
 * from dist/ when current, else the TypeScript source through tsx, which only a checkout with
 * its devDependencies has.
 */
export async function loadMain(entry) {
  const compiled = compiledModule(`${entry}.js`);
  if (compiled !== undefined) return (await import(compiled)).main;
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(
      `mailtwin: dist/ does not match the sources and tsx is not installed: run \`npm run build\`\n`,
    );
    process.exit(2);
  }
  register();
  return (await import(`${ROOT}${entry}.ts`)).main;
}
