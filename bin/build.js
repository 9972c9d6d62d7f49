#!/usr/bin/env node
// `npm run build`, also run by `npm ci`/`npm install` and `npm pack` as `prepare`: compiles the
// emulator and the conformance suite (tsconfig.build.json: emit only; `npm run typecheck` checks
// types) to dist/, mirroring the tree (dist/emulator/src, dist/conformance/src,
// dist/conformance/checks), copies the files that are not TypeScript (the SQL migrations)
// beside the code, computes once what every start would (dist/prebuilt.json: the contracts
// parsed from YAML, the demo fixture validated and its .eml files parsed, by the compiled
// emulator/src/commands/prebuild.ts), bundles the emulator's entry into dist/bundle for a
// faster start (bin/bundle.js; skipped, with a message, when esbuild is missing or fails),
// and records the hash of the sources it compiled (bin/compiled.js), so the bin scripts run
// without tsx only while that hash still holds.
// No source maps (tsconfig.build.json `sourceMap: false`): the package ships no TypeScript for a
// map to point at, and a `//# sourceMappingURL` comment naming a file the package leaves out made
// vitest print `Failed to load source map` for every check file of an installed package's run.
// Without TypeScript (an install that omits devDependencies) it says so and changes nothing.
// --if-stale (as `npm test` runs it) compiles only when dist/ no longer matches the sources.
// Everything is written to a staging folder that then takes dist/'s place whole (installTree),
// so a server or a suite running from dist/ during a build never meets a half-written tree (a
// conformance run caught one at stop 39 and reported only the check files then written).
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { bundleEntries } from './bundle.js';
import {
  DIST,
  ROOT,
  SOURCE_DIRS,
  STAGING,
  STAMP_FILE,
  compiledModule,
  installTree,
  isInstalledPackage,
  stampAfterBuild,
  stampFor,
} from './compiled.js';

if (isInstalledPackage()) process.exit(0); // the package ships dist/ built
if (process.argv.includes('--if-stale') && compiledModule('emulator/src/main.js') !== undefined) {
  process.stdout.write('mailtwin build: dist/ is current\n');
  process.exit(0);
}
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.stdout.write('mailtwin build: TypeScript is not installed; mailtwin runs from source\n');
  process.exit(0);
}
const stamp = stampFor(); // before compiling: an edit made meanwhile makes the build stale
const OUT = STAGING;
/** A failed build leaves no compiled code behind, so mailtwin runs from source. */
const discard = () => {
  rmSync(OUT, { recursive: true, force: true });
  rmSync(DIST, { recursive: true, force: true });
};
rmSync(OUT, { recursive: true, force: true });
const compiled = spawnSync(
  process.execPath,
  [tsc, '-p', `${ROOT}tsconfig.build.json`, '--outDir', OUT],
  { stdio: 'inherit' },
);
if (compiled.status !== 0) {
  discard();
  process.stderr.write('mailtwin build: tsc failed; mailtwin will run from source\n');
  process.exit(1);
}
// Every file that is not TypeScript (the SQL migrations, any asset read beside its module),
// except what only tests read (`*.test.*`, e.g. the same-seed snapshot of the generators).
for (const dir of SOURCE_DIRS) {
  cpSync(`${ROOT}${dir}`, `${OUT}${dir}`, {
    recursive: true,
    filter: (path) =>
      statSync(path).isDirectory() || !(path.endsWith('.ts') || /\.test\.[^/\\]*$/.test(path)),
  });
}
// `mailtwin/testing`'s types (issue 30 item 4): declarations of emulator/src/testing-kit only
// (tsconfig.kit.json emits the whole program's; the rest is dropped), beside its code, and the
// types generated from the spec that they import, at the same relative place.
const kitTypes = spawnSync(
  process.execPath,
  [tsc, '-p', `${ROOT}tsconfig.kit.json`, '--outDir', `${OUT}kit-types`],
  { stdio: 'inherit' },
);
if (kitTypes.status !== 0) {
  discard();
  process.stderr.write('mailtwin build: the types of mailtwin/testing failed\n');
  process.exit(1);
}
// Relative imports end in .js as in the compiled code (tsc keeps `.ts` in declarations).
for (const name of readdirSync(`${OUT}kit-types/emulator/src/testing-kit`)) {
  const text = readFileSync(`${OUT}kit-types/emulator/src/testing-kit/${name}`, 'utf8');
  writeFileSync(
    `${OUT}emulator/src/testing-kit/${name}`,
    text.replace(/(from '\.{1,2}\/[^']*?)(?<!\.d)\.ts'/g, "$1.js'"),
  );
}
cpSync(`${ROOT}spec/generated`, `${OUT}spec/generated`, { recursive: true });
rmSync(`${OUT}kit-types`, { recursive: true, force: true });
// What every start would otherwise compute, computed once by the compiled code. Without it
// the emulator does that work at start, only slower, so a failure is reported and the build
// goes on (a test requires the file).
try {
  const { prebuild } = await import(pathToFileURL(`${OUT}emulator/src/commands/prebuild.js`));
  writeFileSync(`${OUT}prebuilt.json`, JSON.stringify(await prebuild()));
} catch (error) {
  process.stderr.write(
    `mailtwin build: no dist/prebuilt.json, so each start parses the contracts and the demo fixture: ${error.message}\n`,
  );
}
// The emulator's start-up bundle (bin/bundle.js). Without one dist/'s modules serve, only
// slower to start, so a failure is reported and the build goes on (a test requires the bundle).
try {
  if (!(await bundleEntries(['emulator/src/main.js'], OUT))) {
    process.stdout.write('mailtwin build: esbuild is not installed; no start-up bundle\n');
  }
} catch (error) {
  rmSync(`${OUT}bundle/`, { recursive: true, force: true });
  process.stderr.write(
    `mailtwin build: no start-up bundle, the emulator runs dist/'s modules: ${error.message}\n`,
  );
}
writeFileSync(`${OUT}${STAMP_FILE}`, stampAfterBuild(stamp));
installTree(OUT, DIST);
process.stdout.write(`mailtwin build: ${SOURCE_DIRS.join(', ')} compiled to dist/\n`);
if (!existsSync(`${DIST}emulator/src/main.js`)) process.exit(1);
