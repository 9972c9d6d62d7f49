#!/usr/bin/env node
// `npm run lint:deps`: checks the layers written down in .dependency-cruiser.cjs over the
// emulator and the suite, and fails on any violation. It calls dependency-cruiser's API, not its
// command, because the command refuses Node 20 (it checks `engines`, ^22); the API runs here.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

/** What the layers cover: both programs' sources, the suite's checks and what both share. */
export const ROOTS = ['emulator/src', 'conformance/src', 'conformance/checks', 'shared'];

/**
 * Cruises `roots` under `baseDir` with the rules of `configFile` and returns every violation.
 * @param {{ baseDir?: string, roots?: string[], configFile?: string }} [options]
 */
export async function layerViolations({
  baseDir = process.cwd(),
  roots = ROOTS,
  configFile = resolve(process.cwd(), '.dependency-cruiser.cjs'),
} = {}) {
  const options = await extractDepcruiseOptions(configFile);
  const tsConfig = extractTSConfig(resolve(process.cwd(), 'tsconfig.json'));
  const result = await cruise(
    roots,
    { ...options, baseDir, validate: true, outputType: 'json' },
    {},
    { tsConfig },
  );
  const output = typeof result.output === 'string' ? JSON.parse(result.output) : result.output;
  return output.summary.violations;
}

async function main() {
  const violations = await layerViolations();
  const errors = violations.filter((v) => v.rule.severity === 'error');
  const byRule = new Map();
  for (const v of errors) byRule.set(v.rule.name, [...(byRule.get(v.rule.name) ?? []), v]);
  for (const [rule, found] of byRule) {
    console.error(`\n${rule} (${found.length})`);
    for (const v of found) {
      const path = v.cycle?.length ? v.cycle.map((step) => step.name ?? step).join(' -> ') : v.to;
      console.error(`  ${v.from} -> ${path}`);
    }
  }
  if (errors.length > 0) {
    console.error(
      `\nlint:deps: ${errors.length} import(s) break the layers (.dependency-cruiser.cjs)`,
    );
    process.exit(1);
  }
  console.log('lint:deps: no import breaks the layers (.dependency-cruiser.cjs)');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
