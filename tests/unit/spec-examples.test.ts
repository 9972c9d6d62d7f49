// Every example in spec/openapi.yaml is what the emulator really answers (issue 12, item 13).
//
// Given the emulator in process with the demo fixture (fixtures/demo.json), the demo key
// "Demo app" and its clock frozen at 2026-11-20T10:02:11.482Z (the examples' instant):
//
// - Success examples. Each operation's documented requests are sent, built by the pairing rule
//   of ./spec-examples/document.ts (`pairedRequests`): a response example named N goes with the
//   request body example named N and each parameter's `examples[N]` or single `example`; an
//   unnamed one with the unnamed body example and every parameter's `example`. The answer must
//   have the response's status and equal its example field by field (./spec-examples/compare.ts).
// - Real ids are swapped in. The email the examples act on is the demo email the getEmail
//   example shows (found by its mailbox and subject); the upload they attach is made by sending
//   the upload example first. Their example ids (and that email's message and attachment ids)
//   are placeholders for the real ones, in requests and in expected answers alike.
// - Not compared exactly: only what an instance mints for itself (INSTANCE_SPECIFIC in
//   ./spec-examples/compare.ts: `id`, `messageId`, upload `url`, `webhookId`, a non-null
//   `nextCursor`), each checked for its shape and used consistently; the signature header,
//   verified as the HMAC of what was sent; and the message of the 502/503/504 examples, which
//   the emulator can only produce as injected faults (it says so in the message).
// - Error examples. Each is produced by the request ./spec-examples/scenarios.ts gives for it
//   (shared responses for every operation that lists them) and compared the same way.
// - Webhook examples (body and header parameters) are compared with what the emulator sends
//   the demo webhook: `email.received` after the `markdown` send example (the copy delivered
//   to its cc, a mailbox of the same owner), `webhook.test` after a test from the control plane.
// - Every example of the document must be exercised: one without a scenario fails its test.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../emulator/src/spec.ts';
import { Bindings, differences, type CompareOptions } from './spec-examples/compare.ts';
import {
  operationsOf,
  pairedRequests,
  successOf,
  type Example,
  type ExampleRequest,
  type Json,
  type Operation,
  type Response as DocumentedResponse,
} from './spec-examples/document.ts';
import {
  COMPONENT_SCENARIOS,
  INLINE_SCENARIOS,
  type Scenario,
  type SendExample,
} from './spec-examples/scenarios.ts';
import { createWorld, DEMO_PATH, DEMO_WEBHOOK, type World } from './spec-examples/world.ts';

const spec = loadSpec();
const operations = operationsOf(spec);
const apiOperations = operations.filter((op) => op.section === 'paths');

function operation(operationId: string): Operation {
  const found = operations.find((op) => op.operationId === operationId);
  if (found === undefined) throw new Error(`spec/openapi.yaml has no operation ${operationId}`);
  return found;
}

type JsonObject = Record<string, Json>;
const asRecord = (value: Json | undefined): JsonObject => (value ?? {}) as JsonObject;

/** The request of a paired example, placeholders swapped for this world's real values. */
const sendRequest = (
  world: World,
  op: Operation,
  request: ExampleRequest,
  change: Parameters<SendExample>[2] = {},
) => {
  const { bindings } = world;
  const pathParams = { ...request.pathParams, ...change.pathParams };
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(bindings.substitute(String(pathParams[name]))),
  );
  const query = new URLSearchParams(
    Object.entries({ ...request.query, ...change.query }).map(([k, v]): [string, string] => [
      k,
      bindings.substitute(String(v)),
    ]),
  );
  const url = query.size === 0 ? path : `${path}?${query}`;
  const body = change.body ?? request.body;
  const options = { ...change.options };
  if (body !== undefined && options.body === undefined) {
    if (op.requestMediaType === 'multipart/form-data') {
      // A multipart example holds the file's bytes only; its name and media type are the
      // paired response example's (OpenAPI has no place for them in the request example).
      const uploaded = asRecord(successOf(op).examples.find((e) => e.name === request.name)?.value);
      const form = new FormData();
      form.append(
        'file',
        new Blob([String(asRecord(body).file)], { type: String(uploaded.contentType) }),
        String(uploaded.name),
      );
      options.body = form;
    } else if (options.headers?.['Content-Type'] !== undefined) {
      options.body = JSON.stringify(bindings.substituteDeep(body));
    } else {
      options.json = bindings.substituteDeep(body);
    }
  }
  return world.api(op.method, url, options);
};

/** SendExample: the operation's first documented success request, with changes. */
const sendExample: SendExample = (world, op, change) =>
  sendRequest(world, op, pairedRequests(op)[0] as ExampleRequest, change);

/** The getEmail example names the demo email every emailId example stands for. */
const exampleEmail = asRecord(successOf(operation('getEmail')).examples[0]?.value);
const upload = operation('uploadAttachment');

/**
 * A fresh world with the example email bound (id, message id, attachment ids) and the upload
 * example made, its id bound. Returns the upload's answer for the upload example's own test.
 */
async function preparedWorld(): Promise<{ world: World; uploaded: Response }> {
  const world = await createWorld(spec);
  const { mailbox, subject } = exampleEmail;
  const list = await world.api(
    'GET',
    `/emails?${new URLSearchParams({ mailbox: String(mailbox), subject: String(subject) })}`,
  );
  const matches = (
    (await list.json()) as { emails: { id: string; subject: string }[] }
  ).emails.filter((e) => e.subject === subject);
  if (matches.length !== 1) {
    throw new Error(
      `the getEmail example names ${String(mailbox)} "${String(subject)}": ${matches.length} demo emails match`,
    );
  }
  const detail = (await (await world.api('GET', `/emails/${matches[0]?.id}`)).json()) as Record<
    string,
    unknown
  >;
  world.bindings.bind(String(exampleEmail.id), String(detail.id));
  world.exampleEmailId = String(detail.id);
  world.bindings.bind(String(exampleEmail.messageId), String(detail.messageId));
  const attachments = (detail.attachments ?? []) as { id: string }[];
  ((exampleEmail.attachments ?? []) as JsonObject[]).forEach((a, i) =>
    world.bindings.bind(String(a.id), String(attachments[i]?.id)),
  );
  const uploaded = await sendRequest(world, upload, pairedRequests(upload)[0] as ExampleRequest);
  const answer = (await uploaded.clone().json()) as { id?: string };
  const placeholder = asRecord(successOf(upload).examples[0]?.value).id;
  if (uploaded.status === 201) world.bindings.bind(String(placeholder), String(answer.id));
  return { world, uploaded };
}

/** The differences between a documented response (status, example, header examples) and an answer. */
async function responseDifferences(
  world: World,
  documented: DocumentedResponse,
  example: Example | undefined,
  answer: Response,
  options: CompareOptions = {},
): Promise<string[]> {
  const text = await answer.text();
  const found: string[] = [];
  if (String(answer.status) !== documented.status.replace(/XX$/, String(answer.status).slice(1))) {
    found.push(`status: documented ${documented.status}, answered ${answer.status}: ${text}`);
    return found;
  }
  if (example === undefined) {
    if (text !== '') found.push(`body: documented none, answered ${text}`);
  } else if (documented.mediaType === 'application/json') {
    found.push(...differences(example.value, JSON.parse(text) as unknown, world.bindings, options));
  } else if (text !== world.bindings.substitute(String(example.value))) {
    found.push(
      `body: documented ${JSON.stringify(example.value)}, answered ${JSON.stringify(text)}`,
    );
  }
  for (const header of documented.headers) {
    const value = answer.headers.get(header.name);
    if (value !== String(header.example)) {
      found.push(
        `header ${header.name}: documented ${JSON.stringify(header.example)}, answered ${JSON.stringify(value)}`,
      );
    }
  }
  return found;
}

const label = (op: Operation, status: string, example: Example | undefined) =>
  `${op.operationId} ${status}${example?.name === undefined ? '' : ` ${example.name}`}`;

describe('success examples: the documented requests answer the documented responses', () => {
  for (const op of apiOperations) {
    const success = successOf(op);
    let requests: ExampleRequest[];
    try {
      requests = pairedRequests(op);
    } catch (error) {
      it(`${op.operationId}: its examples pair up by name`, () => {
        throw error;
      });
      continue;
    }
    for (const request of requests) {
      const example = success.examples.find((e) => e.name === request.name);
      it(`${label(op, success.status, example)} (${op.method} ${op.path})`, async () => {
        const { world, uploaded } = await preparedWorld();
        const answer = op === upload ? uploaded : await sendRequest(world, op, request);
        expect(await responseDifferences(world, success, example, answer)).toEqual([]);
      });
    }
  }
});

/** Every error example of the document with the scenario that produces it, or undefined. */
const errorExamples = apiOperations.flatMap((op) =>
  op.responses
    .filter((r) => !/^2/.test(r.status))
    .flatMap((response) => response.examples.map((example) => ({ op, response, example })))
    .map((entry) => {
      const key = label(entry.op, entry.response.status, entry.example);
      const scenario: Scenario | undefined =
        entry.response.component !== undefined
          ? COMPONENT_SCENARIOS[entry.response.component]
          : INLINE_SCENARIOS[key];
      return { ...entry, key, scenario };
    }),
);

describe('error examples: each is produced by a request and answered as documented', () => {
  for (const { op, response, example, key, scenario } of errorExamples) {
    const name = `${key}${response.component === undefined ? '' : ` (${response.component})`}: ${scenario?.when ?? 'no scenario'}`;
    it(name, async (context) => {
      if (scenario === undefined) {
        throw new Error(
          `no scenario produces ${example.pointer}: add one to tests/unit/spec-examples/scenarios.ts`,
        );
      }
      const { world } = await preparedWorld();
      const unavailable = await scenario.unavailable?.(world);
      if (unavailable !== undefined) context.skip(unavailable);
      const answer = await scenario.run(world, op, sendExample);
      expect(
        await responseDifferences(world, response, example, answer, { skip: scenario.skip }),
      ).toEqual([]);
    });
  }

  it('has no scenario that produces no documented example', () => {
    const used = new Set(errorExamples.flatMap((e) => [e.key, e.response.component]));
    const stale = [...Object.keys(INLINE_SCENARIOS), ...Object.keys(COMPONENT_SCENARIOS)].filter(
      (k) => !used.has(k),
    );
    expect(stale).toEqual([]);
  });
});

/** The HMAC-SHA256 of `<timestamp>.<body>` with the demo webhook's secret (§6.3, D-36). */
function signatureIsValid(headers: Record<string, string>, body: string): boolean {
  const expected = `sha256=${createHmac('sha256', DEMO_WEBHOOK.secret).update(`${headers['X-Service-Timestamp']}.${body}`).digest('hex')}`;
  const given = headers['X-Service-Signature'] ?? '';
  return (
    given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected))
  );
}

describe('webhook examples: the emulator delivers what the webhooks section documents', () => {
  const triggers: Record<string, { when: string; run(world: World): Promise<unknown> }> = {
    emailReceived: {
      when: 'after the markdown send example, the delivery for the copy its cc mailbox received',
      run: async (world) => {
        const send = operation('sendEmail');
        const markdown = pairedRequests(send).find((r) => r.name === 'markdown') as ExampleRequest;
        const sent = await sendRequest(world, send, markdown);
        if (sent.status !== 201)
          throw new Error(`the markdown send example answered ${sent.status}`);
        await world.services.dispatcher.runDue();
      },
    },
    webhookTest: {
      when: 'after a test delivery asked for on the control plane (the dashboard in the service)',
      run: async (world) => {
        const tested = await world.control('POST', `/webhooks/${DEMO_WEBHOOK.id}/test`);
        if (tested.status !== 200) throw new Error(`the test delivery answered ${tested.status}`);
      },
    },
  };

  for (const op of operations.filter((o) => o.section === 'webhooks')) {
    const trigger = triggers[op.operationId];
    it(`${op.operationId} (${op.path}): ${trigger?.when ?? 'no trigger'}`, async () => {
      if (trigger === undefined)
        throw new Error(`no trigger for the webhook ${op.path}: add one here`);
      const [body] = op.requestExamples;
      expect(op.requestExamples).toHaveLength(1);
      const { world } = await preparedWorld();
      await trigger.run(world);
      const expected = asRecord(body?.value);
      const delivery = world.deliveries.find((d) => {
        const sent = JSON.parse(d.body) as { event?: string; data?: { mailbox?: string } };
        return (
          sent.event === expected.event && sent.data?.mailbox === asRecord(expected.data).mailbox
        );
      });
      expect(delivery, `a ${String(expected.event)} delivery`).toBeDefined();
      if (delivery === undefined) return;
      const found = differences(expected, JSON.parse(delivery.body) as unknown, world.bindings);
      // Header parameters: X-Service-Webhook-Id is the webhook id (instance-specific, as
      // `webhookId`); the signature depends on minted ids, so it is verified instead.
      for (const parameter of op.parameters.filter((p) => p.in === 'header')) {
        const value = delivery.headers[parameter.name];
        const [example] = parameter.examples;
        if (example === undefined) continue;
        if (parameter.name === 'X-Service-Signature') {
          if (
            !/^sha256=[0-9a-f]{64}$/.test(value ?? '') ||
            !signatureIsValid(delivery.headers, delivery.body)
          ) {
            found.push(
              `header ${parameter.name}: ${String(value)} is not the signature of what was sent`,
            );
          }
          continue;
        }
        const asField = parameter.name === 'X-Service-Webhook-Id' ? 'webhookId' : parameter.name;
        found.push(
          ...differences({ [asField]: example.value }, { [asField]: value }, world.bindings).map(
            (d) => `header ${d}`,
          ),
        );
      }
      if (delivery.headers['Content-Type'] !== op.requestMediaType) {
        found.push(
          `Content-Type: documented ${String(op.requestMediaType)}, sent ${String(delivery.headers['Content-Type'])}`,
        );
      }
      expect(found).toEqual([]);
    });
  }
});

describe('the examples are complete and consistent', () => {
  it('pairs every request example with a response example of the same name (and back)', () => {
    const unpaired = apiOperations.flatMap((op) => {
      try {
        pairedRequests(op);
        return [];
      } catch (error) {
        return [(error as Error).message];
      }
    });
    expect(unpaired).toEqual([]);
  });

  it('uses every named parameter example in some paired request', () => {
    const unused = apiOperations.flatMap((op) => {
      const names = new Set(successOf(op).examples.map((e) => e.name));
      return op.parameters.flatMap((p) =>
        p.examples.filter((e) => e.name !== undefined && !names.has(e.name)).map((e) => e.pointer),
      );
    });
    expect(unused).toEqual([]);
  });

  it('refers to every example of #/components/examples', () => {
    const used = new Set(
      operations
        .flatMap((op) => [
          ...op.requestExamples,
          ...op.parameters.flatMap((p) => p.examples),
          ...op.responses.flatMap((r) => r.examples),
        ])
        .map((e) => e.pointer),
    );
    const components = Object.keys((spec.components as { examples?: object }).examples ?? {});
    expect(components.filter((name) => !used.has(`/components/examples/${name}/value`))).toEqual(
      [],
    );
  });

  it('names only ids the demo data fixes: every emailId, attachmentId and attachmentIds entry', () => {
    const demo = JSON.parse(readFileSync(DEMO_PATH, 'utf8')) as {
      emails: { id?: string; attachments?: { id?: string }[] }[];
      uploads?: { id?: string }[];
    };
    const fixed = new Set(
      [
        ...demo.emails.flatMap((e) => [e.id, ...(e.attachments ?? []).map((a) => a.id)]),
        ...(demo.uploads ?? []).map((u) => u.id),
      ].filter((id) => id !== undefined),
    );
    const named = apiOperations.flatMap((op) => [
      ...op.parameters
        .filter((p) => p.name === 'emailId' || p.name === 'attachmentId')
        .flatMap((p) => p.examples.map((e) => String(e.value))),
      ...op.requestExamples.flatMap((e) =>
        ((asRecord(e.value).attachmentIds ?? []) as Json[]).map(String),
      ),
    ]);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((id) => !fixed.has(id))).toEqual([]);
    // Every operation on an email acts on the getEmail example's, except the delete example,
    // which removes another demo email so that a replay in order still finds this one.
    const emailIds = apiOperations.flatMap((op) =>
      op.parameters
        .filter((p) => p.name === 'emailId' && op.operationId !== 'deleteEmail')
        .flatMap((p) => p.examples.map((e) => e.value)),
    );
    expect(new Set(emailIds)).toEqual(new Set([exampleEmail.id]));
  });
});

describe('the examples work as written on the demo data (example-driven tools such as Dredd)', () => {
  it('answers every documented success request, replayed in document order on one emulator with the ids as written, with its documented status', async () => {
    const world = await createWorld(spec); // no bindings: every value is sent as the spec shows it
    const answered: string[] = [];
    const wrong: string[] = [];
    for (const op of apiOperations) {
      const success = successOf(op);
      for (const request of pairedRequests(op)) {
        const answer = await sendRequest(world, op, request);
        const name = `${op.operationId}${request.name === undefined ? '' : ` ${request.name}`}`;
        answered.push(`${name} ${answer.status}`);
        if (String(answer.status) !== success.status) {
          wrong.push(
            `${name}: documented ${success.status}, answered ${answer.status}: ${await answer.text()}`,
          );
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(answered.length).toBeGreaterThanOrEqual(apiOperations.length);
  });
});

describe('the comparison notices drift (a changed example fails)', () => {
  const reply = successOf(operation('replyToEmail')).examples.find(
    (e) => e.name === 'reply',
  ) as Example;
  /** The reply example, changed, compared with the reply example as the answer. */
  const drift = (change: (example: JsonObject) => void) => {
    const drifted = structuredClone(reply.value) as JsonObject;
    change(drifted);
    return differences(drifted, reply.value, new Bindings());
  };

  it('matches the example itself', () => {
    expect(drift(() => undefined)).toEqual([]);
  });

  it('flags a reply subject without "Re: " (D-22)', () => {
    expect(drift((e) => (e.subject = 'Rent invoice December 2026 - Unit 4B'))).toEqual([
      '$.subject: documented "Rent invoice December 2026 - Unit 4B", answered "Re: Rent invoice December 2026 - Unit 4B"',
    ]);
  });

  it('flags a null inReplyTo, a changed timestamp, a field not answered and one not documented', () => {
    const found = drift((e) => {
      e.inReplyTo = null;
      e.receivedAt = '2026-11-20T10:02:11.000Z';
      e.folderName = 'sent';
      delete e.preheader;
    });
    expect(found.map((d) => d.split(':')[0])).toEqual([
      '$.receivedAt',
      '$.inReplyTo',
      '$.folderName',
      '$.preheader',
    ]);
  });

  it('flags an id not shaped like one, and one placeholder answered with two values', () => {
    expect(differences({ id: 'x' }, { id: 'has spaces' }, new Bindings())).toHaveLength(1);
    expect(
      differences([{ id: 'A' }, { id: 'A' }], [{ id: 'B' }, { id: 'C' }], new Bindings()),
    ).toHaveLength(1);
  });
});
