import { createRequire } from 'node:module';
import { DEFAULT_MEMO_DIR, DiskMemo } from './disk-memo.ts';

/** YAML's parse depends on the text alone (and the `yaml` package, pinned in package.json). */
const memo = new DiskMemo(DEFAULT_MEMO_DIR, '');

/**
 * Parses YAML, reusing the JSON of an earlier parse of the very same text: the two contracts
 * take about a third of a second each to parse as YAML and a few ms as JSON, which was most of
 * the emulator's start-up. Kept only for documents that JSON represents exactly. The `yaml`
 * package itself (84 modules) loads only when something is not kept yet.
 */
export function parseYamlCached(text: string): unknown {
  const kept = memo.read('yaml', text);
  if (kept !== undefined) {
    try {
      return JSON.parse(kept) as unknown;
    } catch {
      // A damaged file: parse below, and keep the parse again.
    }
  }
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const value = parse(text) as unknown;
  if (isPlainJson(value)) memo.write('yaml', [text], JSON.stringify(value));
  return value;
}

/** Whether JSON.parse(JSON.stringify(value)) gives back exactly `value`. */
function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.entries(value).every(([key, v]) => key !== '__proto__' && isPlainJson(v));
}
