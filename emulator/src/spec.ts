import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { buildOutputs } from './prebuilt.ts';
import { packagePath } from './package-root.ts';

/** Where the contract lives in the repository (spec/openapi.yaml). */
export const SPEC_PATH = packagePath('spec/openapi.yaml');

/** The parsed OpenAPI document, as a plain JSON value. */
export type OpenApiDocument = Record<string, unknown> & { servers?: unknown; paths?: unknown };

/**
 * Reads and parses spec/openapi.yaml; the one place the emulator loads its contracts. Parsing
 * the two contracts as YAML took most of a start (about a third of a second each), so the
 * build parses them once (dist/prebuilt.json, commands/prebuild.ts) and a start reads the JSON
 * kept for the very same text; the `yaml` package (84 modules) loads only for other text.
 */
export function loadSpec(path: string = SPEC_PATH): OpenApiDocument {
  const text = readFileSync(path, 'utf8');
  return (buildOutputs().get('yaml', [text], false) ?? parseYaml(text)) as OpenApiDocument;
}

/** The `yaml` package (84 modules), loaded with its first use: a start with no --binding has none. */
export function yamlPackage(): typeof import('yaml') {
  return createRequire(import.meta.url)('yaml') as typeof import('yaml');
}

/** YAML's `parse`, loading the package on first use (yamlPackage). */
export function parseYaml(text: string): unknown {
  return yamlPackage().parse(text);
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
