import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { closeServices, createServices, defaultDeps } from '../app.ts';
import { DEFAULT_FIXTURES } from '../cli-options.ts';
import { fixtureResults, type PrebuiltResult } from '../fixtures/prebuilt-fixture.ts';
import { packagePath } from '../package-root.ts';
import { prebuiltKey } from '../prebuilt.ts';

/** The YAML every start reads: the API's contract and the control plane's. */
const CONTRACTS = ['spec/openapi.yaml', 'spec/control.yaml'];

/**
 * Run by `npm run build` (bin/build.js) on the compiled code, once: what every start would
 * otherwise compute (the contracts parsed from YAML, the demo fixture validated and its `.eml`
 * files parsed), as the content of dist/prebuilt.json (prebuilt.ts reads it). About a second
 * of work that each start of the emulator skips.
 */
export async function prebuild(): Promise<{ entries: Record<string, unknown> }> {
  const results: PrebuiltResult[] = [];
  for (const contract of CONTRACTS) {
    const text = readFileSync(packagePath(contract), 'utf8');
    const value = parse(text) as unknown;
    if (isPlainJson(value)) results.push(['yaml', [text], value]);
  }
  const services = createServices(defaultDeps());
  try {
    results.push(...(await fixtureResults(services.inbound, DEFAULT_FIXTURES)));
  } finally {
    await closeServices(services);
  }
  return {
    entries: Object.fromEntries(
      results.map(([kind, inputs, value]) => [prebuiltKey(kind, inputs), value]),
    ),
  };
}

/** Whether JSON.parse(JSON.stringify(value)) gives back exactly `value`. */
function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.entries(value).every(([key, v]) => key !== '__proto__' && isPlainJson(v));
}
