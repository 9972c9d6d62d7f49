// Whether dist/ (compiled by `npm run build`, which `npm ci` runs as `prepare` and `npm pack`
// runs before packing) was built from exactly the sources in the tree now: a SHA-256 over the
// compiled folders (tests aside), the tsconfig files, the build scripts and the lockfile (the
// bundle copies hono in; the build's outputs are made with yaml and mailparser), taken before
// compiling and kept in dist/.sources-sha256. Content decides, so an edit, a checkout or a copy
// of the tree can never run stale code; a fingerprint of sizes and times kept beside it only
// saves reading every file when nothing was touched since the build. An installed package
// ships dist/ without the TypeScript sources: there the compiled code is all there is, and it
// is used as is.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const DIST = `${ROOT}dist/`;
/** The build's stamp file, in dist/ (STAMP) as in the staging folder it is written to. */
export const STAMP_FILE = '.sources-sha256';
export const STAMP = `${DIST}${STAMP_FILE}`;
/** Start-up bundles of compiled entries (bin/bundle.js). */
export const BUNDLE_DIR = `${DIST}bundle/`;
/**
 * Where `npm run build` writes the next dist/ (20-40 s of writing), which then takes dist/'s
 * place whole (installTree): a server or a suite run from dist/ meanwhile never meets half a tree.
 */
export const STAGING = `${ROOT}.dist-next/`;
/** The folders `npm run build` compiles (tsconfig.build.json), each mirrored under dist/. */
export const SOURCE_DIRS = ['emulator/src', 'conformance/src', 'conformance/checks', 'shared'];
/**
 * What else decides dist/'s content: the compiler's settings, the build scripts, and the
 * versions of the packages (package-lock.json): installing another version makes dist/ stale
 * until rebuilt (a bare `npm install` rebuilds, as `prepare`).
 */
const BUILD_FILES = [
  'tsconfig.json',
  'tsconfig.build.json',
  'bin/build.js',
  'bin/bundle.js',
  'package-lock.json',
];

/** The files dist/ is made from (tests aside), as paths relative to the root, in a fixed order. */
export function sourceFiles() {
  const files = [];
  const walk = (dir) => {
    const entries = readdirSync(`${ROOT}${dir}`, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (!entry.name.includes('.test.')) files.push(path); // tests are not built
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  return [...files, ...BUILD_FILES.filter((file) => existsSync(`${ROOT}${file}`))];
}

/** The hash of what dist/ is made from: every file's path and content (about 30 ms). */
export function sourcesHash(files = sourceFiles()) {
  const hash = createHash('sha256');
  for (const path of files)
    hash
      .update(`${path}\0`)
      .update(readFileSync(`${ROOT}${path}`))
      .update('\0');
  return hash.digest('hex');
}

/**
 * The hash of every file's path, size and modification time: no file is read (a few ms). Equal
 * to what the build recorded only while no file was touched since; when it differs (an edit, a
 * checkout, a copy) the content hash decides, so times can confirm a build but never reject it.
 */
export function sourcesFingerprint(files = sourceFiles()) {
  const hash = createHash('sha256');
  for (const path of files) {
    const { size, mtimeMs } = statSync(`${ROOT}${path}`);
    hash.update(`${path}\0${size}\0${mtimeMs}\0`);
  }
  return hash.digest('hex');
}

/**
 * A file touched this close to the stamp may be rewritten within the same modification-time
 * tick at the same size, which a fingerprint cannot see (git calls such files racy): then no
 * fingerprint is kept, and the content hash decides every time.
 */
const RACY_MS = 2_000;

/** The build stamp: the content hash, then the fingerprint (or an empty line), one per line. */
export function stampFor(files = sourceFiles(), now = Date.now()) {
  const racy = files.some((path) => now - statSync(`${ROOT}${path}`).mtimeMs < RACY_MS);
  return `${sourcesHash(files)}\n${racy ? '' : sourcesFingerprint(files)}\n`;
}

/**
 * The stamp a build ends with: taken again once compiled, when the sources' content is still
 * what was compiled (`before`, taken first), so an edit made just before building, too recent
 * for a fingerprint then, no longer costs every start a read of every file; else `before`.
 */
export function stampAfterBuild(before, files = sourceFiles(), now = Date.now()) {
  const after = stampFor(files, now);
  return after.split('\n')[0] === before.split('\n')[0] ? after : before;
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
  const [hash, fingerprint] = readFileSync(STAMP, 'utf8').split('\n');
  const files = sourceFiles();
  const confirmed =
    fingerprint !== undefined && fingerprint !== '' && fingerprint === sourcesFingerprint(files);
  const current = confirmed || hash === sourcesHash(files);
  return current ? `${DIST}${path}` : undefined;
}

/** The file of the start-up bundle of a compiled entry: `emulator/src/main.js` → emulator-src-main.js. */
export function bundleName(entry) {
  return `${entry.replace(/\.js$/, '').replaceAll('/', '-')}.js`;
}

/**
 * The start-up bundle of the compiled module at `path` (bin/bundle.js), if the build made one;
 * else undefined. Asked only once dist/ is known current: the bundle is made by the build that
 * writes the stamp, which covers the installed packages copied into it (an installed package's
 * dependencies are the exact versions its package.json pins).
 */
export function bundledModule(path, bundleDir = BUNDLE_DIR) {
  const file = `${bundleDir}${bundleName(path)}`;
  return existsSync(file) ? file : undefined;
}

/**
 * The compiled file that runs a bin script's entry (`emulator/src/main`, say): its start-up
 * bundle if it has a current one, else its module in dist/; undefined when dist/ is not current.
 */
export function compiledEntry(entry) {
  const compiled = compiledModule(`${entry}.js`);
  return compiled === undefined ? undefined : (bundledModule(`${entry}.js`) ?? compiled);
}

/**
 * The `main` of a bin script's entry (`emulator/src/main`, say, without extension): compiled
 * when dist/ is current (`compiledEntry`), else the TypeScript source through tsx, which only a
 * checkout with its devDependencies has.
 */
export async function loadMain(entry) {
  const compiled = compiledEntry(entry);
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

/**
 * Puts the folder `staged` in the place of `target` (the build's dist/), then removes the tree it
 * replaced: `target` holds one whole tree, the old or the new, at every moment but the one
 * between the two renames (a directory cannot be renamed over a full one).
 */
export function installTree(staged, target) {
  const old = `${target.replace(/\/$/, '')}.old-${process.pid}`;
  rmSync(old, { recursive: true, force: true });
  if (existsSync(target)) renameSync(target, old);
  renameSync(staged, target);
  rmSync(old, { recursive: true, force: true });
}
