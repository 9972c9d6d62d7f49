import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { packagePath } from './package-root.ts';

/** Beside the dependencies, where tools keep caches (`node_modules/.cache/<tool>`). */
const CACHE_DIR = packagePath('node_modules/.cache/mailtwin/');

/**
 * Parses YAML, reusing the JSON of an earlier parse of the very same text (by SHA-256): the
 * two contracts take about a third of a second each to parse as YAML and a few ms as JSON,
 * which is most of the emulator's start-up. Kept only for documents that JSON represents
 * exactly; any failure to read or write the cache just parses.
 */
export function parseYamlCached(text: string): unknown {
  const file = `${CACHE_DIR}${createHash('sha256').update(text).digest('hex')}.json`;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    // Not cached yet (or unreadable): parse below.
  }
  const value = parse(text) as unknown;
  if (isPlainJson(value)) {
    try {
      mkdirSync(CACHE_DIR, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, JSON.stringify(value));
      renameSync(partial, file); // whole or absent, for processes starting side by side
    } catch {
      // A read-only install: parse every time, as before.
    }
  }
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
