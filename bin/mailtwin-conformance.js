#!/usr/bin/env node
// Runs the compiled suite (dist/conformance, from `npm run build`, which `npm ci` runs) when it
// was built from the sources as they are; otherwise the TypeScript sources through tsx
// (bin/compiled.js). MAILTWIN_FROM_SOURCE=1 always runs the sources.
import { loadMain } from './compiled.js';

const main = await loadMain('conformance/src/cli/main');
process.exitCode = await main(process.argv.slice(2));
