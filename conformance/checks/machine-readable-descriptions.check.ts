/**
 * §1 and §9: a deployment serves its own machine-readable description. The served
 * openapi.json must be OpenAPI 3.1 and describe exactly the contract's operations and webhook.
 */
import { expectAt } from '../src/contract/charge.ts';
import { rule } from '../src/check-runner/check.ts';
import { openApi31Violations, operationKeys } from '../src/contract/openapi-document.ts';

type Document = {
  openapi?: unknown;
  paths?: unknown;
  servers?: { url?: string }[];
  webhooks?: Record<string, unknown>;
};

/**
 * §1: the schema served at {origin}/openapi/openapi.json, as JSON; a failure to serve it is
 * charged to `ruleId`, the rule the calling check verifies with it.
 */
async function fetchServedDocument(
  api: import('../src/client/client.ts').ApiClient,
  origin: string,
  ruleId: string,
) {
  const response = await api.request({ path: `${origin}/openapi/openapi.json`, absolute: true });
  expectAt(ruleId, response.status, 'GET {origin}/openapi/openapi.json status').toBe(200);
  expectAt(ruleId, response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  return response.json<Document>();
}

rule(
  ['1-R4', '9-R2'],
  'serves {origin}/openapi/openapi.json as a valid OpenAPI 3.1 document',
  async ({ api, target }) => {
    const served = await fetchServedDocument(api, target.origin, '1-R4');
    expectAt('9-R2', String(served.openapi)).toMatch(/^3\.1\.\d+$/);
    expectAt(
      '9-R2',
      await openApi31Violations(served),
      'violations of the OpenAPI 3.1 schema',
    ).toEqual([]);
  },
);

rule(
  ['4-R3', '1-R5'],
  'describes the same 10 operations (method and path) as the contract',
  async ({ api, target, validator }) => {
    const served = await fetchServedDocument(api, target.origin, '4-R3');
    const contract = validator.operationKeys();
    expectAt('4-R3', contract, 'the contract itself has the 10 operations of §4').toHaveLength(10);
    expectAt('4-R3', operationKeys(served)).toEqual(contract);
  },
);

rule(
  ['6-R1', '6.2-R1'],
  'describes the email.received webhook as the contract does',
  async ({ api, target, validator }) => {
    const served = await fetchServedDocument(api, target.origin, '6-R1');
    const contractWebhook = (validator.spec.webhooks as Record<string, { post?: unknown }>)[
      'email.received'
    ];
    expectAt(
      '6-R1',
      contractWebhook?.post,
      'the contract describes webhooks.email.received',
    ).toBeDefined();
    expectAt(
      '6-R1',
      served.webhooks?.['email.received'],
      'webhooks.email.received in the served document',
    ).toBeDefined();
    // §6.2: a delivery is an HTTP POST.
    expectAt(
      '6.2-R1',
      (served.webhooks?.['email.received'] as { post?: unknown }).post,
    ).toBeDefined();
  },
);

rule(['1-R2'], 'exposes no webhook management operation in the API', async ({ api, target }) => {
  const served = await fetchServedDocument(api, target.origin, '1-R2');
  const webhookPaths = operationKeys(served).filter((key) => /webhook/i.test(key));
  expectAt('1-R2', webhookPaths).toEqual([]);
});

rule(
  ['9-R1', '5-R5', '1-R1'],
  'names a server URL that is the full versioned endpoint ending in /openapi/v1',
  async ({ api, target }) => {
    const served = await fetchServedDocument(api, target.origin, '9-R1');
    const urls = (served.servers ?? []).map((server) => server.url ?? '');
    expectAt('5-R5', urls.length, 'servers in the served document').toBeGreaterThan(0);
    for (const url of urls) expectAt('9-R1', url).toMatch(/\/openapi\/v1$/);
    if (target.kind === 'emulator') expectAt('5-R5', urls).toContain(target.baseUrl);
  },
);

rule(
  ['1-R3'],
  'serves an interactive reference at {origin}/openapi/docs',
  async ({ api, target }) => {
    const response = await api.request({ path: `${target.origin}/openapi/docs`, absolute: true });
    expectAt('1-R3', response.status).toBe(200);
    expectAt('1-R3', response.headers.get('content-type') ?? '').toMatch(/^text\/html/);
    expectAt('1-R3', response.text).toMatch(/<html/i);
  },
);
