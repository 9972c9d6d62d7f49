// How each documented error example is produced: a request, given the demo data, that must
// answer exactly that example. Shared error responses (`$ref: '#/components/responses/...'`)
// are produced for every operation that lists them; inline ones per operation and status.
import type { Json, Operation } from './document.ts';
import { OTHER_OWNER_KEY, type CallOptions, type World } from './world.ts';

/** Sends an operation's first documented success request, with changes. */
export type SendExample = (
  world: World,
  op: Operation,
  change?: {
    pathParams?: Record<string, Json>;
    query?: Record<string, Json>;
    body?: Json;
    options?: CallOptions;
  },
) => Promise<Response>;

export interface Scenario {
  /** Given/when, in prose: the test's name. */
  when: string;
  run(world: World, op: Operation, send: SendExample): Promise<Response>;
  /**
   * Fields of the example not compared, with the reason. Only for faults the emulator can only
   * simulate: their messages say "injected fault", where the spec shows a deployment's words.
   */
  skip?: Record<string, string>;
  /** Why the scenario cannot run on this build (checked at run time), or undefined. */
  unavailable?(world: World): Promise<string | undefined>;
}

const SUPPRESSED = 'old.accounts@globex.test';
const FAULT_OPERATION: Record<string, string> = {
  sendEmail: 'send',
  replyToEmail: 'reply',
  forwardEmail: 'forward',
};
const INJECTED = {
  message: 'an injected fault: the emulator says so in its message; code and field are compared',
};

function armFault(status: number | undefined): Scenario['run'] {
  return async (world, op, send) => {
    const operation = FAULT_OPERATION[op.operationId];
    if (operation === undefined) throw new Error(`no fault can be armed for ${op.operationId}`);
    const fault =
      status === undefined ? { mode: 'timeout-after-commit' } : { mode: 'error', status };
    const armed = await world.control('POST', '/faults', { operations: [operation], ...fault });
    if (armed.status !== 201)
      throw new Error(`arming a fault answered ${armed.status}: ${await armed.text()}`);
    return send(world, op);
  };
}

/**
 * The email the examples act on (the getEmail example's), deleted first; then the documented
 * request is sent for it, so every operation on its id answers the 404 example. (The delete
 * example itself names another demo email: replayed in order, it leaves this one in place.)
 */
const deletedFirst: Scenario = {
  when: 'the example email is deleted, then the documented request is sent for it',
  run: async (world, op, send) => {
    const id = world.exampleEmailId;
    if (id === undefined) throw new Error('the world has no example email bound');
    const deleted = await world.api('DELETE', `/emails/${encodeURIComponent(id)}`);
    if (deleted.status !== 204)
      throw new Error(`deleting the example email answered ${deleted.status}`);
    return send(world, op, { pathParams: { emailId: id } });
  },
};

/** Produces the shared responses of #/components/responses, by component name. */
export const COMPONENT_SCENARIOS: Record<string, Scenario> = {
  Unauthorized: {
    when: 'the documented request is sent with a key the deployment does not know',
    run: (world, op, send) =>
      send(world, op, { options: { key: `sk-NoSuchKey0001_${'x'.repeat(32)}` } }),
  },
  RateLimited: {
    when: 'a limit of 100 requests a minute is set, 100 requests are made, 48 s pass, then the documented request',
    unavailable: async (world) =>
      (await world.control('GET', '/rate-limit')).status === 200
        ? undefined
        : 'the control plane has no /rate-limit on this build',
    run: async (world, op, send) => {
      const set = await world.control('PUT', '/rate-limit', {
        rateLimit: { requests: 100, windowMs: 60_000 },
      });
      if (set.status !== 200) throw new Error(`setting the rate limit answered ${set.status}`);
      for (let i = 0; i < 100; i += 1) await world.api('GET', '/mailboxes');
      world.deps.clock.advance(48_000);
      return send(world, op);
    },
  },
  InternalError: {
    when: 'the store fails unexpectedly while the documented request is served',
    run: (world, op, send) => {
      const sabotaged = () => {
        throw new Error('sabotaged by the test');
      };
      // The first store reads of every request: a key's access, once decided, is kept until
      // the access tables are written (decided-access.ts), so the key's lookup alone is not
      // reached by a world that has already made requests.
      world.deps.store.directory.accessWrites.writesSeen = sabotaged;
      world.deps.store.directory.findKeyByLookup = sabotaged;
      return send(world, op);
    },
  },
  BadGateway: {
    when: 'a 502 fault is armed for the operation',
    run: armFault(502),
    skip: INJECTED,
  },
  ServiceUnavailable: {
    when: 'a 503 fault is armed for the operation',
    run: armFault(503),
    skip: INJECTED,
  },
  GatewayTimeout: {
    when: 'a timeout-after-commit fault is armed for the operation',
    run: armFault(undefined),
    skip: INJECTED,
  },
  RequestTooLarge: {
    when: 'the body is one byte over the 25 MiB platform limit (D-27)',
    run: (world, op, send) =>
      send(world, op, {
        options: {
          body: 'x'.repeat(26_214_401),
          headers: {
            'Content-Type':
              op.requestMediaType === 'multipart/form-data'
                ? 'multipart/form-data; boundary=x'
                : 'application/json',
          },
        },
      }),
  },
  UnsupportedMediaType: {
    when: 'the documented body is sent as text/plain',
    run: (world, op, send) =>
      send(world, op, { options: { headers: { 'Content-Type': 'text/plain' } } }),
  },
  EmailNotFound: deletedFirst,
  EmailIdTooLong: {
    when: 'the documented request is sent with an emailId of 129 characters',
    run: (world, op, send) => send(world, op, { pathParams: { emailId: 'A'.repeat(129) } }),
  },
  RecipientSuppressed: {
    when: 'the recipient is the demo suppressed address (mail from it is answered, or it is forwarded to)',
    run: async (world, op, send) => {
      if (op.operationId === 'forwardEmail') return send(world, op, { body: { to: SUPPRESSED } });
      if (op.operationId !== 'replyToEmail')
        throw new Error(`no suppression scenario for ${op.operationId}`);
      const received = await world.control('POST', '/inbound', {
        mailbox: 'billing@acme.test',
        from: `Old Accounts <${SUPPRESSED}>`,
        to: ['billing@acme.test'],
        subject: 'Closing our account',
        text: 'Please close our account.',
      });
      if (received.status !== 201) throw new Error(`injecting mail answered ${received.status}`);
      const { id } = (await received.json()) as { id: string };
      return send(world, op, { pathParams: { emailId: id }, body: { text: 'Done.' } });
    },
  },
};

/** Produces inline error examples, by `operationId status` (and ` name` for named ones). */
export const INLINE_SCENARIOS: Record<string, Scenario> = {
  'listEmails 400': {
    when: 'the documented query asks for a page of 101',
    run: (world, op, send) => send(world, op, { query: { limit: 101 } }),
  },
  'listEmails 404': {
    when: 'the documented query names a mailbox of the other demo owner (D-26)',
    run: (world, op, send) => send(world, op, { query: { mailbox: 'sales@northwind.test' } }),
  },
  'sendEmail 400 missingVariable': {
    when: 'the markdown example is sent without its variables',
    run: (world, op, send) => {
      const { variables: _dropped, ...body } = exampleBody(op, 'markdown');
      return send(world, op, { body });
    },
  },
  'sendEmail 400 tooManyRecipients': {
    when: 'the text example is sent with 50 bcc addresses besides its to (D-10)',
    run: (world, op, send) =>
      send(world, op, {
        body: {
          ...exampleBody(op, 'text'),
          bcc: Array.from({ length: 50 }, (_, i) => `guest${i}@example.test`),
        },
      }),
  },
  'sendEmail 404': {
    when: 'the text example is sent from a mailbox the demo does not have',
    run: (world, op, send) =>
      send(world, op, { body: { ...exampleBody(op, 'text'), from: 'ops@acme.test' } }),
  },
  'sendEmail 422': {
    when: 'the text example is sent to the demo suppressed address',
    run: (world, op, send) =>
      send(world, op, { body: { ...exampleBody(op, 'text'), to: SUPPRESSED } }),
  },
  'updateEmail 400': {
    when: 'the example email is moved to a folder that does not exist',
    run: (world, op, send) => send(world, op, { body: { folder: 'later' } }),
  },
  'replyToEmail 400': {
    when: 'a reply with no body field is sent',
    run: (world, op, send) => send(world, op, { body: {} }),
  },
  'replyToEmail 404': deletedFirst,
  'forwardEmail 400': {
    when: 'a forward with no recipient is sent',
    run: (world, op, send) => send(world, op, { body: {} }),
  },
  'forwardEmail 404': {
    when: 'a forward names an upload id nobody uploaded',
    run: (world, op, send) =>
      send(world, op, {
        body: {
          to: 'maria.lopez@acme.test',
          attachmentIds: ['0b5e4a7c-1d2e-4f30-8a9b-c0d1e2f3a4b5'],
        },
      }),
  },
  'uploadAttachment 400': {
    when: 'an empty file is uploaded',
    run: (world) => {
      const form = new FormData();
      form.append('file', new Blob([], { type: 'text/csv' }), 'empty.csv');
      return world.api('POST', '/attachments', { body: form });
    },
  },
  'uploadAttachment 415': {
    when: 'the upload is sent as JSON',
    run: (world) => world.api('POST', '/attachments', { json: { file: 'invoice' } }),
  },
  'downloadAttachment 400': {
    when: 'an attachmentId of 129 characters is asked for (D-52)',
    run: (world, op, send) => send(world, op, { pathParams: { attachmentId: 'a'.repeat(129) } }),
  },
  'downloadAttachment 404': {
    when: 'the example upload is downloaded with a key of the other demo owner (D-32)',
    run: (world, op, send) => send(world, op, { options: { key: OTHER_OWNER_KEY } }),
  },
};

function exampleBody(op: Operation, name: string): Record<string, Json> {
  const example = op.requestExamples.find((e) => e.name === name);
  if (example === undefined || typeof example.value !== 'object' || example.value === null) {
    throw new Error(`${op.operationId} has no request example ${name}`);
  }
  return example.value as Record<string, Json>;
}
