/**
 * The files the CLI hands to vitest: the check files and the workers' setup file, located from
 * this running module and with its own extension. From the sources (tsx) these are the
 * `.check.ts` files of conformance/checks and conformance/src/run/setup.ts; from the compiled
 * copy `npm run build` writes, the `.check.js` files of dist/conformance/checks and
 * dist/conformance/src/run/setup.js. Never found from the package root: a compiled run must not
 * run the TypeScript sources beside it (absent from a package, or newer than what was compiled).
 */
import { statSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const THIS_FILE = fileURLToPath(import.meta.url);
/** conformance/src/cli, or dist/conformance/src/cli. */
const HERE = dirname(THIS_FILE);
/** `.ts` when run from the sources, `.js` when run compiled. */
const SUFFIX = extname(THIS_FILE);

/** The folder of the check files, absolute. */
export const CHECKS_DIR = join(HERE, '..', '..', 'checks');
/** How a check file's name ends: `.check.ts`, or `.check.js` compiled. */
export const CHECK_FILE_SUFFIX = `.check${SUFFIX}`;
/** The setup every check worker runs first (one seed, one run count), absolute. */
export const SETUP_FILE = join(HERE, '..', 'run', `setup${SUFFIX}`);

/** vitest's `include` and `setupFiles`, relative to its `root` (the package root). */
export function suiteFiles(root: string): { include: string[]; setupFiles: string[] } {
  return {
    include: [`${posix(relative(root, CHECKS_DIR))}/**/*${CHECK_FILE_SUFFIX}`],
    setupFiles: [posix(relative(root, SETUP_FILE))],
  };
}

/**
 * A file of the suite as the sources name it, however it ran: `dist/conformance/checks/x.check.js`
 * (a build or an installed package) is reported as `conformance/checks/x.check.ts`, so reports,
 * plans and JUnit files read the same from a checkout, a build or a package, and name the file a
 * vendor finds in the repository. `relativePath` is relative to the package root.
 */
export function sourceNameOf(relativePath: string): string {
  const path = posix(relativePath);
  const compiled = /^dist\/(conformance\/(?:checks|src)\/.+)\.js$/.exec(path);
  return compiled === null ? path : `${compiled[1]}.ts`;
}

/** Globs take `/` on every system. */
function posix(path: string): string {
  return path.split('\\').join('/');
}

/**
 * Notes the folders a run reads its suite from (the check files' and the setup file's) as it
 * starts, and gives a function that says, once it ends, whether one was removed or made again
 * meanwhile, as `npm run build` does to dist/ (it deletes dist/ and writes it again over some
 * seconds): files the run needed were then missing for a while, and vitest reported what it
 * found, some files or none. A problem of the suite, never a verdict on the target.
 */
export function watchSuiteFolders(
  root: string,
  folders: readonly string[] = [CHECKS_DIR, dirname(SETUP_FILE)],
): () => string | undefined {
  const identity = (folder: string) => {
    try {
      const stat = statSync(folder, { bigint: true });
      return `${stat.ino}:${stat.birthtimeNs}`;
    } catch {
      return 'absent';
    }
  };
  const before = folders.map(identity);
  return () => {
    const changed = folders.filter((folder, i) => identity(folder) !== before[i]);
    if (changed.length === 0) return undefined;
    const shown = changed.map((folder) => posix(relative(root, folder)) || '.').join(', ');
    return `${shown} was removed or written again while the run went on (as \`npm run build\` does to dist/): vitest ran what it found of the suite then, which may be some check files or none`;
  };
}
