// Whether dist/emulator (compiled by `npm run build`, which `npm ci` runs as `prepare`) was built
// from exactly the sources in the tree now: a SHA-256 over emulator/src (tests aside) and the
// tsconfig files, taken before compiling and kept in dist/emulator/.sources-sha256. Content,
// not times, so an edit, a checkout or a copy of the tree can never run stale code.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const DIST = `${ROOT}dist/emulator/`;
export const STAMP = `${DIST}.sources-sha256`;
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];

/** The hash of what the compiled emulator is made from (about 20 ms for ~140 files). */
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
  walk('emulator/src');
  for (const config of CONFIGS) {
    if (existsSync(`${ROOT}${config}`))
      hash.update(`${config}\0`).update(readFileSync(`${ROOT}${config}`));
  }
  return hash.digest('hex');
}

/** The compiled module `name` (e.g. `main.js`) when dist is current, else undefined. */
export function compiledModule(name) {
  if (process.env.MAILTWIN_FROM_SOURCE === '1' || !existsSync(STAMP)) return undefined;
  return readFileSync(STAMP, 'utf8').trim() === sourcesHash() ? `${DIST}${name}` : undefined;
}
