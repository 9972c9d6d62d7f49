/**
 * Reads a document a command names: a deployment's published OpenAPI document (§1: every
 * deployment serves `{origin}/openapi/openapi.json`) or a binding, from an http(s) URL (fetched
 * with a time-out) or a file, as YAML or JSON (YAML is a superset of JSON).
 */
import { readFile } from 'node:fs/promises';
import { parseYaml } from '../spec.ts';

/** A document that cannot be read; the message names where from. */
export class DocumentError extends Error {
  override name = 'DocumentError';
}

export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;

export interface ReadOptions {
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

export function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

export async function readDocument(location: string, options: ReadOptions = {}): Promise<unknown> {
  const text = isUrl(location) ? await fetchText(location, options) : await readText(location);
  try {
    return parseYaml(text);
  } catch (error) {
    throw new DocumentError(`${location}: not YAML or JSON (${(error as Error).message})`);
  }
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new DocumentError(`${path}: cannot read the file (${(error as Error).message})`);
  }
}

async function fetchText(url: string, options: ReadOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, {
      headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.1' },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : ((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message);
    throw new DocumentError(`${url}: cannot fetch (${reason})`);
  }
  if (!response.ok) throw new DocumentError(`${url}: answered HTTP ${response.status}`);
  return response.text();
}
