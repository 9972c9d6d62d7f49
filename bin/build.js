#!/usr/bin/env node
// `npm run build`, also run by `npm ci`/`npm install` as `prepare`: compiles emulator/src to
// dist/emulator with tsc (tsconfig.build.json: emit only; `npm run typecheck` checks types),
// copies the files that are not TypeScript (the SQL migrations) beside the code, and records
// the hash of the sources it compiled (bin/compiled.js), so bin/mailtwin.js starts without tsx
// only while that hash still holds.
// Without TypeScript (an install that omits devDependencies) it says so and changes nothing:
// bin/mailtwin.js then runs the sources through tsx, only slower to start.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DIST, ROOT, STAMP, sourcesHash } from './compiled.js';

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.stdout.write(
    'mailtwin build: TypeScript is not installed; the emulator runs from source\n',
  );
  process.exit(0);
}
const hash = sourcesHash(); // before compiling: an edit made meanwhile makes the build stale
rmSync(DIST, { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, '-p', `${ROOT}tsconfig.build.json`], {
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  rmSync(DIST, { recursive: true, force: true });
  process.stderr.write('mailtwin build: tsc failed; the emulator will run from source\n');
  process.exit(1);
}
// Every file that is not TypeScript (the SQL migrations, any asset read beside its module).
cpSync(`${ROOT}emulator/src`, DIST, {
  recursive: true,
  filter: (path) => statSync(path).isDirectory() || !path.endsWith('.ts'),
});
writeFileSync(STAMP, `${hash}\n`);
process.stdout.write(`mailtwin build: emulator compiled to ${DIST.slice(ROOT.length)}\n`);
if (!existsSync(`${DIST}main.js`)) process.exit(1);
