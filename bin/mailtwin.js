#!/usr/bin/env node
// Runs the compiled emulator (from `npm run build`, which `npm ci` runs: its start-up bundle in
// dist/bundle, else dist/emulator/src) when it was built from the sources as they are;
// otherwise the TypeScript sources through tsx, so `mailtwin` works right after a checkout or
// an edit, only slower to start.
// MAILTWIN_FROM_SOURCE=1 always runs the sources.
import { loadMain } from './compiled.js';
import { applyV8Flags } from './v8-flags.js';

applyV8Flags(); // before the emulator loads (v8-flags.js)
const main = await loadMain('emulator/src/main');
process.exitCode = await main(process.argv.slice(2));
