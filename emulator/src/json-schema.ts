import { createRequire } from 'node:module';
import type { Ajv2020, Options } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);

/**
 * A new ajv for JSON Schema 2020-12 with the standard formats (ajv-formats). ajv, about 80
 * modules, loads with the first call rather than with the emulator: only request bodies and
 * fixture files are validated with it, so start-up and read-only clients do not wait for it.
 * Both packages are CommonJS, so a synchronous require loads them where they are first needed.
 */
export function newAjv2020(options: Options): Ajv2020 {
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = require('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
  return addFormats(new Ajv(options));
}
