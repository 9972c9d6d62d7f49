import { readFileSync } from 'node:fs';
import { parseYamlCached } from './yaml-cache.ts';
import { packagePath } from './package-root.ts';

/** Where the contract lives in the repository (spec/openapi.yaml). */
export const SPEC_PATH = packagePath('spec/openapi.yaml');

/** The parsed OpenAPI document, as a plain JSON value. */
export type OpenApiDocument = Record<string, unknown> & { servers?: unknown; paths?: unknown };

/**
 * Reads and parses spec/openapi.yaml; the one place the emulator loads its contracts. The
 * parse is cached by content (yaml-cache.ts): YAML parsing was most of start-up.
 */
export function loadSpec(path: string = SPEC_PATH): OpenApiDocument {
  return parseYamlCached(readFileSync(path, 'utf8')) as OpenApiDocument;
}

/**
 * The spec as this instance serves it at /openapi/openapi.json (§1): identical to the
 * contract except that `servers` names this instance's own `{base_url}`.
 */
export function specForInstance(spec: OpenApiDocument, baseUrl: string): OpenApiDocument {
  return {
    ...spec,
    servers: [{ url: baseUrl, description: 'This mailtwin emulator instance.' }],
  };
}
