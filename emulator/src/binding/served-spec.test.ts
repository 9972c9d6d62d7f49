import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { newAjv2020 } from '../json-schema.ts';
import { packagePath } from '../package-root.ts';
import { loadSpec, type OpenApiDocument } from '../spec.ts';
import { bootDemo } from '../test-helpers/binding-app.ts';
import type { OutgoingDelivery } from '../webhook-delivery/connector.ts';
import type { Binding } from './binding.ts';
import { bindingFrom, loadBindingFile } from './load.ts';
import { servedSpec } from './served-spec.ts';

type Json = Record<string, any>;
const VARIANTS = packagePath('tests/variants/bindings');
const FILES = readdirSync(VARIANTS).filter((f) => f.endsWith('.yaml'));
const variant = (file: string) => loadBindingFile(join(VARIANTS, file));
const SPEC = loadSpec();
const API = '/openapi/v1';
const EMAIL = '01JD8Z3Q4T5V6W7X8Y9Z0A1B2C';

/** Every variant's renames at once: one dialect that shares no decided name with DECISIONS. */
function everything(): Binding {
  const parts = FILES.map((f) => variant(f));
  const pick = (name: string) => parts[FILES.indexOf(`${name}.yaml`)] as Binding;
  return bindingFrom(
    {
      binding: 1,
      name: 'every rename',
      list: pick('list-array').list,
      email: {
        ...pick('sender').email,
        folder: 'parentFolder',
        read: 'isRead',
        starred: 'flagged',
        preheader: null,
      },
      webhookData: pick('webhook-data').webhookData,
      update: pick('patch-fields').update,
      send: { preheader: 'previewText' },
      forward: pick('forward-recipient').forward,
      operations: {
        ...pick('send-202-reference').operations,
        sendEmail: { status: 202, answer: 'reference', emailId: 'header:Location' },
        updateEmail: { status: 202 },
        uploadAttachment: { status: 200 },
      },
      errors: pick('error-table').errors,
      folders: pick('graph-folders').folders,
      mailboxes: pick('mailbox-record').mailboxes,
    },
    'every rename',
  );
}

async function validOpenApi(document: OpenApiDocument): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
  expect(() => validator.resolveRefs()).not.toThrow();
}

/** Validates answers against the response schemas of one served document. */
function answerChecker(document: OpenApiDocument) {
  const ajv = newAjv2020({ strict: false, allErrors: true, validateSchema: false })
    .addFormat('binary', true)
    .addSchema(document, 'served');
  const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  return (template: string, method: string, status: number, body: unknown): string[] => {
    const operation = (document.paths as Json)[template][method];
    let response = operation.responses[String(status)];
    expect(response, `${method} ${template} documents ${status}`).toBeDefined();
    let pointer = `#/paths/${escape(template)}/${method}/responses/${status}`;
    if (response.$ref !== undefined) {
      pointer = response.$ref;
      response = pointer
        .slice(2)
        .split('/')
        .reduce((node: Json, key: string) => node[key], document as Json);
    }
    if (response.content?.['application/json'] === undefined)
      return body === null ? [] : ['no JSON body documented'];
    const validate = ajv.compile({ $ref: `served${pointer}/content/application~1json/schema` });
    return validate(body)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

describe('the document a binding serves', () => {
  it.each(FILES)('is valid OpenAPI 3.1 for %s', async (file) => {
    await validOpenApi(servedSpec(SPEC, variant(file)));
  });

  it('is valid OpenAPI 3.1 with every rename at once', async () => {
    await validOpenApi(servedSpec(SPEC, everything()));
  });

  it('describes the dialect: list array, records, PATCH and forward fields, statuses, errors, folders', () => {
    const doc = servedSpec(SPEC, everything()) as Json;
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.EmailList.properties)).toEqual(['data', 'nextCursor']);
    expect(
      schemas.EmailDetail.properties.from.properties.emailAddress.properties.address.pattern,
    ).toBe((SPEC as Json).components.schemas.Address.properties.address.pattern);
    expect(
      schemas.EmailDetail.properties.toRecipients.items.properties.emailAddress.required,
    ).toEqual(['address', 'name']);
    expect(schemas.EmailDetail.properties).not.toHaveProperty('preheader');
    expect(Object.keys(schemas.UpdateEmailRequest.properties)).toEqual([
      'parentFolder',
      'isRead',
      'flagged',
    ]);
    expect(schemas.ForwardRequest.required).toEqual(['toRecipients']);
    expect(schemas.ForwardRequest.properties.toRecipients).toMatchObject({
      type: 'array',
      minItems: 1,
      maxItems: 1,
    });
    expect(schemas.SendEmailRequest.properties).toHaveProperty('previewText');
    expect(schemas.SendEmailRequest.properties).not.toHaveProperty('preheader');
    expect(schemas.Folder.enum).toEqual(['inbox', 'sentitems', 'archive', 'junkemail', 'trash']);
    expect(schemas.Mailbox.required).toEqual(['email', 'name']);
    expect(schemas.EmailReceivedEvent.properties.data.properties.sender.required).toEqual([
      'email',
      'name',
    ]);
    const send = doc.paths['/emails/send'].post.responses;
    expect(Object.keys(send)).not.toContain('201');
    expect(send['202'].headers.Location.required).toBe(true);
    expect(send['202'].content['application/json'].schema.properties.status.const).toBe('queued');
    expect(send['409']['x-error-codes']).toEqual(['suppressed_recipient']);
    expect(send['422']['x-error-codes']).toContain('recipients_limit');
    expect(send['413']['x-error-codes']).toEqual(
      expect.arrayContaining(['request_too_large', 'attachments_limit', 'message_too_large']),
    );
    // What the binding leaves at 400: invalid JSON, and a body too costly to render (D-67).
    expect(send['400']['x-error-codes']).toEqual(['invalid_json', 'body_too_complex']);
    expect(doc.paths['/emails/{emailId}'].patch.responses).toHaveProperty('202');
    expect(
      doc.paths['/emails/{emailId}'].patch.requestBody.content['application/json'].examples
        .archiveAndRead.value,
    ).toEqual({
      parentFolder: 'archive',
      isRead: true,
    });
    expect(doc['x-binding'].name).toBe('every rename');
  });

  it('keeps an error response as written when the binding leaves its codes where they were', () => {
    const doc = servedSpec(SPEC, variant('list-array.yaml')) as Json;
    const own = (SPEC as Json).paths['/emails'].get.responses;
    for (const status of ['400', '401', '404', '429', '500'])
      expect(doc.paths['/emails'].get.responses[status]).toEqual(own[status]);
    expect(doc.paths['/emails/send'].post.responses['401']).toEqual({
      $ref: '#/components/responses/Unauthorized',
    });
  });

  it('is what the emulator serves at /openapi/openapi.json', async () => {
    const app = await bootDemo(everything());
    const served = (await (await app.call('GET', '/openapi/openapi.json')).json()) as Json;
    expect(served.components).toEqual((servedSpec(SPEC, everything()) as Json).components);
  });
});

describe('every answer in a dialect validates against the document it serves', () => {
  it('with every rename at once: successes, reference answers, errors and the webhook body', async () => {
    const binding = everything();
    const doc = servedSpec(SPEC, binding);
    const check = answerChecker(doc);
    const deliveries: OutgoingDelivery[] = [];
    const app = await bootDemo(binding, async (d) => {
      deliveries.push(d);
      return { status: 204 };
    });
    app.services.webhooks.create({
      ownerId: 'own_acme',
      url: 'https://hooks.example.test/in',
      scope: 'follow-owner',
    });
    const problems: string[] = [];
    const run = async (
      template: string,
      method: string,
      path: string,
      body?: unknown,
      expected?: number,
    ) => {
      const res = await app.call(method.toUpperCase(), `${API}${path}`, body);
      if (expected !== undefined) expect(res.status, `${method} ${path}`).toBe(expected);
      const text = await res.text();
      const found = check(template, method, res.status, text === '' ? null : JSON.parse(text));
      problems.push(...found.map((p) => `${method} ${path} ${res.status}: ${p}`));
      return text === '' ? null : (JSON.parse(text) as Json);
    };
    await run('/mailboxes', 'get', '/mailboxes', undefined, 200);
    await run('/emails', 'get', '/emails?mailbox=billing@acme.test&limit=3', undefined, 200);
    await run(
      '/emails',
      'get',
      '/emails?mailbox=billing@acme.test&folder=sentitems',
      undefined,
      200,
    );
    await run('/emails', 'get', '/emails?mailbox=billing@acme.test&folder=sent', undefined, 422);
    await run('/emails', 'get', '/emails?mailbox=billing@acme.test&limit=500', undefined, 422);
    await run('/emails', 'get', '/emails?mailbox=nobody@acme.test', undefined, 404);
    await run('/emails/{emailId}', 'get', `/emails/${EMAIL}`, undefined, 200);
    await run('/emails/{emailId}', 'get', '/emails/nope', undefined, 404);
    await run(
      '/emails/{emailId}',
      'patch',
      `/emails/${EMAIL}`,
      { isRead: true, parentFolder: 'junkemail' },
      202,
    );
    await run('/emails/{emailId}', 'patch', `/emails/${EMAIL}`, { read: true }, 422);
    await run('/emails/{emailId}', 'patch', `/emails/${EMAIL}`, { parentFolder: 'sent' }, 422);
    const sent = {
      from: 'billing@acme.test',
      to: 'x@example.test',
      subject: 'Hi {{n}}',
      text: 'a',
      previewText: 'p',
      variables: { n: 1 },
    };
    await run('/emails/send', 'post', '/emails/send', sent, 202);
    await run('/emails/send', 'post', '/emails/send', { ...sent, variables: {} }, 422);
    await run('/emails/send', 'post', '/emails/send', { ...sent, preheader: 'p' }, 422);
    await run('/emails/send', 'post', '/emails/send', { ...sent, to: 'old.accounts@globex.test' });
    await run('/emails/{emailId}/reply', 'post', `/emails/${EMAIL}/reply`, { text: 'ok' }, 202);
    const forward = { toRecipients: [{ emailAddress: { address: 'maria.lopez@acme.test' } }] };
    await run('/emails/{emailId}/forward', 'post', `/emails/${EMAIL}/forward`, forward, 202);
    await run('/emails/{emailId}/forward', 'post', `/emails/${EMAIL}/forward`, {}, 422);
    await run('/attachments/{attachmentId}', 'get', '/attachments/nope', undefined, 404);
    await run('/emails/{emailId}', 'delete', `/emails/${EMAIL}`, undefined, 204);
    expect(problems).toEqual([]);

    // The webhook body of the mail that reached maria.lopez@acme.test (the forward).
    await app.services.dispatcher.runDue();
    const events = deliveries
      .map((d) => JSON.parse(d.body.toString('utf8')) as Json)
      .filter((e) => e.event === 'email.received');
    expect(events.length).toBeGreaterThan(0);
    const ajv = newAjv2020({ strict: false, allErrors: true, validateSchema: false }).addSchema(
      doc,
      'served',
    );
    const validate = ajv.compile({ $ref: 'served#/components/schemas/EmailReceivedEvent' });
    for (const event of events) expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(FILES)('%s: reads and errors validate', async (file) => {
    const binding = variant(file);
    const check = answerChecker(servedSpec(SPEC, binding));
    const app = await bootDemo(binding);
    const cases: [string, string, string][] = [
      ['/mailboxes', 'get', '/mailboxes'],
      ['/emails', 'get', '/emails?mailbox=billing@acme.test&limit=5'],
      ['/emails', 'get', '/emails?mailbox=nobody@acme.test'],
      ['/emails/{emailId}', 'get', `/emails/${EMAIL}`],
      ['/emails/{emailId}', 'get', '/emails/nope'],
      ['/emails/{emailId}', 'patch', `/emails/${EMAIL}`],
    ];
    for (const [template, method, path] of cases) {
      const body = method === 'patch' ? { [binding.update.read]: true } : undefined;
      const res = await app.call(method.toUpperCase(), `${API}${path}`, body);
      expect(
        check(template, method, res.status, await res.json()),
        `${method} ${path} ${res.status}`,
      ).toEqual([]);
    }
  });
});
