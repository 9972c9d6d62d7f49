#!/usr/bin/env node
// Runs the compiled suite (dist/conformance, from `npm run build`) when it was built from the
// sources as they are; otherwise the TypeScript sources through tsx (bin/compiled.js).
// MAILTWIN_FROM_SOURCE=1 always runs the sources.
import { existsSync } from 'node:fs';
import { ROOT, loadMain } from './compiled.js';

// TEMPORARY while conformance/src is being reorganised: the entry moves to cli/main.
const entry = existsSync(`${ROOT}conformance/src/cli.ts`)
  ? 'conformance/src/cli'
  : 'conformance/src/cli/main';
const main = await loadMain(entry);
process.exitCode = await main(process.argv.slice(2));
