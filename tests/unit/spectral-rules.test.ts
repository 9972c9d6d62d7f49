// Proves that each of our own Spectral rules (spec/.spectral.yaml) flags the lint case written to
// break it, flags nothing else among our own rules there, and that good.yaml passes everything.
// Spectral's CLI is run once over all lint cases; it exits non-zero when it finds problems.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const spectralBin = join(root, 'node_modules', '.bin', 'spectral');
const casesDir = join(root, 'spec', 'lint-cases');

const OWN_RULES = [
  'mailtwin-operation-id',
  'mailtwin-401-response',
  'mailtwin-error-schema',
  'mailtwin-property-description',
  'mailtwin-media-examples',
  'mailtwin-ignored-header',
  'mailtwin-contract-layers',
] as const;
type OwnRule = (typeof OWN_RULES)[number];

interface SpectralResult {
  code: string;
  message: string;
  path: (string | number)[];
  severity: number;
  source?: string;
}

const SEVERITY_ERROR = 0;

function runSpectral(files: string[]): Promise<SpectralResult[]> {
  // --quiet: without it, a run with zero results prints "[]No results ... found!" on stdout.
  const args = [
    'lint',
    '--ruleset',
    join(root, 'spec', '.spectral.yaml'),
    '-f',
    'json',
    '--quiet',
    ...files,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      spectralBin,
      args,
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        // Exit code 1 just means "problems found"; anything else (2 = crash, bad ruleset) is fatal.
        const exitCode = error === null ? 0 : error.code;
        if (exitCode !== 0 && exitCode !== 1) {
          reject(new Error(`spectral exited with ${String(exitCode)}:\n${stderr}\n${stdout}`));
          return;
        }
        try {
          resolve(JSON.parse(stdout) as SpectralResult[]);
        } catch (parseError) {
          reject(
            new Error(`spectral did not print JSON (${String(parseError)}):\n${stderr}\n${stdout}`),
          );
        }
      },
    );
  });
}

const bySource = new Map<string, SpectralResult[]>();

function resultsFor(lintCase: string): SpectralResult[] {
  return bySource.get(lintCase) ?? [];
}

function ownResults(lintCase: string, rule: OwnRule): SpectralResult[] {
  return resultsFor(lintCase).filter((r) => r.code === rule);
}

function ownCodes(lintCase: string): Set<string> {
  return new Set(
    resultsFor(lintCase)
      .map((r) => r.code)
      .filter((code) => (OWN_RULES as readonly string[]).includes(code)),
  );
}

/** The lint case yields `rule` (as errors) at exactly `paths`, and no other own rule. */
function expectFlagged(
  lintCase: string,
  rule: OwnRule,
  paths: (string | number)[][],
): SpectralResult[] {
  const results = ownResults(lintCase, rule);
  expect(results.map((r) => r.path)).toEqual(expect.arrayContaining(paths));
  expect(results).toHaveLength(paths.length);
  for (const result of results) expect(result.severity).toBe(SEVERITY_ERROR);
  expect([...ownCodes(lintCase)]).toEqual([rule]);
  return results;
}

beforeAll(async () => {
  const files = readdirSync(casesDir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => join(casesDir, name));
  const results = await runSpectral(files);
  for (const result of results) {
    const key = basename(result.source ?? '<no source>');
    bySource.set(key, [...(bySource.get(key) ?? []), result]);
  }
}, 60_000);

describe('own Spectral rules (spec/.spectral.yaml)', () => {
  it('flags an operation with a missing or non-lowerCamelCase operationId (mailtwin-operation-id)', () => {
    const results = expectFlagged('operation-id.yaml', 'mailtwin-operation-id', [
      ['paths', '/messages', 'get'],
      ['paths', '/messages/{messageId}', 'get', 'operationId'],
    ]);
    expect(results.map((r) => r.message).join('\n')).toContain('"Get_Message"');
  });

  it('flags a secured operation without a 401 response, but not a public one (mailtwin-401-response)', () => {
    const [result] = expectFlagged('401-response.yaml', 'mailtwin-401-response', [
      ['paths', '/messages', 'get', 'responses'],
    ]);
    expect(result?.message).toContain('GET /messages');
  });

  it('flags error responses whose JSON body is not a $ref to #/components/schemas/Error, following response $refs (mailtwin-error-schema)', () => {
    const results = expectFlagged('error-schema.yaml', 'mailtwin-error-schema', [
      ['paths', '/messages', 'post', 'responses', '400', 'content', 'application/json', 'schema'],
      ['components', 'responses', 'ServerError', 'content'],
    ]);
    expect(results.map((r) => r.message).join('\n')).toContain('POST /messages response 5XX');
  });

  it('flags schema properties without a description in components, inline schemas and webhooks (mailtwin-property-description)', () => {
    expectFlagged('property-description.yaml', 'mailtwin-property-description', [
      ['components', 'schemas', 'Message', 'properties', 'subject'],
      [
        'paths',
        '/messages/{messageId}',
        'get',
        'responses',
        '200',
        'content',
        'application/json',
        'schema',
        'properties',
        'retrievedAt',
      ],
      [
        'webhooks',
        'messageBounced',
        'post',
        'requestBody',
        'content',
        'application/json',
        'schema',
        'properties',
        'message',
      ],
    ]);
  });

  it('flags a JSON media type without an example and examples that do not match their schema (mailtwin-media-examples)', () => {
    const requestExample = [
      'paths',
      '/messages',
      'post',
      'requestBody',
      'content',
      'application/json',
    ];
    const results = expectFlagged('media-examples.yaml', 'mailtwin-media-examples', [
      [...requestExample, 'examples', 'badAddress', 'value'],
      [...requestExample, 'examples', 'badAddress', 'value', 'to'],
      ['paths', '/messages', 'post', 'responses', '202', 'content', 'application/json'],
      [
        'paths',
        '/messages/{messageId}/raw',
        'get',
        'responses',
        '200',
        'content',
        'text/plain',
        'example',
      ],
    ]);
    const messages = results.map((r) => r.message).join('\n');
    expect(messages).toContain(`must have required property 'subject'`);
    expect(messages).toContain('/to must match format "email"');
    expect(messages).toContain('must NOT have more than 10 characters');
  });

  it('flags Accept, Content-Type and Authorization header parameters and Content-Type response and encoding headers, which OpenAPI 3.1 ignores (mailtwin-ignored-header)', () => {
    const results = expectFlagged('ignored-header.yaml', 'mailtwin-ignored-header', [
      ['paths', '/messages', 'get', 'parameters', '0'],
      ['components', 'parameters', 'Authorization'],
      ['webhooks', 'messageBounced', 'post', 'parameters', '0'],
      ['components', 'responses', 'Unauthorized', 'headers', 'Content-Type'],
      [
        'paths',
        '/messages',
        'post',
        'requestBody',
        'content',
        'multipart/form-data',
        'encoding',
        'file',
        'headers',
        'Content-Type',
      ],
    ]);
    const messages = results.map((r) => r.message).join('\n');
    expect(messages).toContain('header parameter "authorization"');
    expect(messages).toContain("describe it with the request body's media type");
    expect(messages).toContain('§4.8.12.1');
  });

  it('flags statuses, enums and closed objects neither documented nor decided, and malformed marks, in a two-layer contract (mailtwin-contract-layers)', () => {
    const results = expectFlagged('contract-layers.yaml', 'mailtwin-contract-layers', [
      ['paths', '/things', 'get', 'responses', '404'],
      ['components', 'responses', 'Gone'],
      ['components', 'schemas', 'Error', 'x-documented'],
      ['components', 'schemas', 'Thing', 'properties', 'color', 'enum'],
      ['components', 'schemas', 'ThingRequest', 'additionalProperties'],
    ]);
    const messages = results.map((r) => r.message).join('\n');
    expect(messages).toContain('closed object at #/components/schemas/ThingRequest');
    expect(messages).toContain('x-decided: {enum: D-n}');
    expect(messages).toContain('documented rule id <section>-R<n>');
  });

  it('reports nothing at all for good.yaml (own rules and spectral:oas)', () => {
    expect(resultsFor('good.yaml')).toEqual([]);
  });

  it('has a lint case for every own rule', () => {
    const cases = readdirSync(casesDir).filter((name) => name.endsWith('.yaml'));
    const flagged = new Set(cases.flatMap((name) => [...ownCodes(name)]));
    expect([...flagged].sort()).toEqual([...OWN_RULES].sort());
  });
});
