import { Validator } from '@seriousme/openapi-schema-validator';

/**
 * Every way a value fails to be an OpenAPI 3.1 document (§1, §9), judged by the OpenAPI
 * Initiative's published 3.1 schema; `[]` when it is one.
 */
export async function openApi31Violations(document: unknown): Promise<string[]> {
  if (typeof document !== 'object' || document === null) return ['/ must be an object'];
  if ((document as { openapi?: unknown }).openapi?.toString().startsWith('3.1.') !== true) {
    return [
      `/openapi must be 3.1.x, got ${JSON.stringify((document as { openapi?: unknown }).openapi)}`,
    ];
  }
  // The validator keeps state per document; a fresh one per call keeps calls independent.
  const result = await new Validator().validate(
    structuredClone(document) as Record<string, unknown>,
  );
  if (result.valid) return [];
  const errors = (Array.isArray(result.errors) ? result.errors : []) as {
    instancePath?: string;
    message?: string;
  }[];
  return errors.length === 0
    ? [String(result.errors)]
    : errors.map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];

/** The document's operations as sorted `METHOD /path` strings. */
export function operationKeys(document: { paths?: unknown }): string[] {
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  const keys: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      if (item[method] !== undefined) keys.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return keys.sort();
}
