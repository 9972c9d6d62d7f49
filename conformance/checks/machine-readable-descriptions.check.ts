/**
 * §1 and §9: a deployment serves its own machine-readable description. The served
 * openapi.json must be OpenAPI 3.1 and describe exactly the contract's operations and webhook.
 */
import { expect } from 'vitest';
import { rule } from '../src/check.ts';
import { openApi31Violations, operationKeys } from '../src/openapi-document.ts';

type Document = {
  openapi?: unknown;
  paths?: unknown;
  servers?: { url?: string }[];
  webhooks?: Record<string, unknown>;
};

async function fetchServedDocument(api: import('../src/client.ts').ApiClient, origin: string) {
  const response = await api.request({ path: `${origin}/openapi/openapi.json`, absolute: true });
  expect(response.status, 'GET {origin}/openapi/openapi.json status').toBe(200);
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  return response.json<Document>();
}

rule(
  ['1-R4', '9-R2'],
  'serves {origin}/openapi/openapi.json as a valid OpenAPI 3.1 document',
  async ({ api, target }) => {
    const served = await fetchServedDocument(api, target.origin);
    expect(String(served.openapi)).toMatch(/^3\.1\.\d+$/);
    expect(await openApi31Violations(served), 'violations of the OpenAPI 3.1 schema').toEqual([]);
  },
);

rule(
  ['4-R3', '1-R5'],
  'describes the same 10 operations (method and path) as the contract',
  async ({ api, target, validator }) => {
    const served = await fetchServedDocument(api, target.origin);
    const contract = validator.operationKeys();
    expect(contract, 'the contract itself has the 10 operations of §4').toHaveLength(10);
    expect(operationKeys(served)).toEqual(contract);
  },
);

rule(
  ['6-R1', '6.2-R1'],
  'describes the email.received webhook as the contract does',
  async ({ api, target, validator }) => {
    const served = await fetchServedDocument(api, target.origin);
    const contractWebhook = (validator.spec.webhooks as Record<string, { post?: unknown }>)[
      'email.received'
    ];
    expect(contractWebhook?.post, 'the contract describes webhooks.email.received').toBeDefined();
    expect(
      served.webhooks?.['email.received'],
      'webhooks.email.received in the served document',
    ).toBeDefined();
    expect((served.webhooks?.['email.received'] as { post?: unknown }).post).toBeDefined();
  },
);

rule(['1-R2'], 'exposes no webhook management operation in the API', async ({ api, target }) => {
  const served = await fetchServedDocument(api, target.origin);
  const webhookPaths = operationKeys(served).filter((key) => /webhook/i.test(key));
  expect(webhookPaths).toEqual([]);
});

rule(
  ['9-R1', '5-R5', '1-R1'],
  'names a server URL that is the full versioned endpoint ending in /openapi/v1',
  async ({ api, target }) => {
    const served = await fetchServedDocument(api, target.origin);
    const urls = (served.servers ?? []).map((server) => server.url ?? '');
    expect(urls.length, 'servers in the served document').toBeGreaterThan(0);
    for (const url of urls) expect(url).toMatch(/\/openapi\/v1$/);
    if (target.kind === 'emulator') expect(urls).toContain(target.baseUrl);
  },
);

rule(
  ['1-R3'],
  'serves an interactive reference at {origin}/openapi/docs',
  async ({ api, target }) => {
    const response = await api.request({ path: `${target.origin}/openapi/docs`, absolute: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type') ?? '').toMatch(/^text\/html/);
    expect(response.text).toMatch(/<html/i);
  },
);
