import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, defaultDeps } from '../../../emulator/src/app.ts';
import { PreflightFailure, preflight, type PreflightTarget } from './preflight.ts';
import { createTarget } from '../worlds/targets.ts';

const CONTROL_TOKEN = 'mt_preflight-control-token-0123456789';
const ORIGIN = 'http://emulator.test';
const WRONG_KEY = 'sk-ThisKeyIsNotKnown_0123456789wxyz';

/** The emulator without a socket, with one owner, one mailbox and a key of that owner. */
async function emulator() {
  const app = createApp(
    defaultDeps({
      controlToken: CONTROL_TOKEN,
      logError: () => {},
      // Its made-up origin is a name, served as --allowed-hosts would (D-66).
      hosts: { allowed: ['emulator.test'] },
    }),
  );
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await app.request(`${ORIGIN}/_mailtwin/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${CONTROL_TOKEN}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };
  const owner = await control<{ id: string }>('POST', '/owners', { name: 'Preflight' });
  await control('POST', '/mailboxes', { address: 'hello@acme.test' });
  await control('PUT', `/owners/${owner.id}/grants/hello%40acme.test`);
  const key = await control<{ secret: string }>('POST', '/keys', {
    ownerId: owner.id,
    name: 'preflight',
    scope: 'follow-owner',
  });
  const target = (overrides: Partial<PreflightTarget> = {}): PreflightTarget => ({
    baseUrl: `${ORIGIN}/openapi/v1`,
    apiKey: key.secret,
    mailboxes: ['hello@acme.test'],
    control: undefined,
    fetch: async (request) => app.fetch(request),
    ...overrides,
  });
  return { key: key.secret, target };
}

/** The one line the preflight fails with. */
async function failure(target: PreflightTarget, timeoutMs = 5_000): Promise<string> {
  const error = await preflight(target, { timeoutMs }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PreflightFailure);
  const message = (error as PreflightFailure).message;
  expect(message).not.toContain('\n');
  return message;
}

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A loopback server of `kind`, its port. */
async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on: bound, read, closed. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const live = (baseUrl: string): PreflightTarget => ({
  baseUrl,
  apiKey: 'sk-live-key-0123456789abcd',
  mailboxes: [],
  control: undefined,
  fetch: (request) => fetch(request, { redirect: 'manual' }),
});

describe('preflight against the emulator', () => {
  it('passes a key the target accepts and a mailbox it lists, with one request', async () => {
    const { target } = await emulator();
    expect(await preflight(target(), { timeoutMs: 5_000 })).toEqual({
      requests: 1,
      mailboxes: ['hello@acme.test'],
    });
  });

  it('passes the in-process emulator, which has no key, and its control plane', async () => {
    const result = await preflight(createTarget({ kind: 'emulator' }), { timeoutMs: 5_000 });
    expect(result.requests).toBe(2);
  });

  it('refuses a key the target answers 401, showing only its prefix and last four characters', async () => {
    const { target } = await emulator();
    const message = await failure(target({ apiKey: WRONG_KEY }));
    expect(message).toBe(
      'the API key sk-…wxyz is not accepted (401 invalid_api_key: The API key is not valid.)',
    );
    expect(message).not.toContain(WRONG_KEY);
  });

  it('shows nothing but the prefix of a short key', async () => {
    const { target } = await emulator();
    expect(await failure(target({ apiKey: 'sk-wrongkey' }))).toMatch(
      /^the API key sk-… is not accepted \(401 invalid_api_key: /,
    );
  });

  it('names --second-api-key when the second key is the one refused', async () => {
    const { target } = await emulator();
    expect(await failure(target({ secondApiKey: WRONG_KEY }))).toMatch(
      /^the API key sk-…wxyz \(--second-api-key\) is not accepted \(401 /,
    );
  });

  it('asks every key given by role, and names the role of the one refused', async () => {
    const { key, target } = await emulator();
    const keys = { 'follow-owner': key, 'one-domain': WRONG_KEY };
    expect(await failure(target({ keys }))).toMatch(
      /^the API key sk-…wxyz \(--key one-domain=\) is not accepted \(401 /,
    );
  });

  it('requires a key given as disabled to be refused, and asks no mailbox of it', async () => {
    const { key, target } = await emulator();
    expect(
      await preflight(target({ keys: { disabled: WRONG_KEY } }), { timeoutMs: 5_000 }),
    ).toEqual({
      requests: 2,
      mailboxes: ['hello@acme.test'],
    });
    expect(await failure(target({ keys: { 'disabled-owner': key } }))).toMatch(
      /^the key sk-…\w{4} given as --key disabled-owner= is not refused \(GET \S+ answered 200\): give a key that is of a disabled owner$/,
    );
  });

  it('refuses a --mailbox that no key lists, naming it and what was listed', async () => {
    const { target } = await emulator();
    expect(await failure(target({ mailboxes: ['hello@acme.test', 'nobody@acme.test'] }))).toBe(
      '--mailbox nobody@acme.test is not among the mailboxes the key may use (GET /mailboxes listed hello@acme.test)',
    );
  });

  it('takes a --mailbox in another case as the same address', async () => {
    const { target } = await emulator();
    await expect(
      preflight(target({ mailboxes: ['Hello@ACME.test'] }), { timeoutMs: 5_000 }),
    ).resolves.toMatchObject({ requests: 1 });
  });

  it('asks a control plane given for its clock, and refuses a token it does not accept', async () => {
    const { target } = await emulator();
    const control = { baseUrl: `${ORIGIN}/_mailtwin/v1`, token: CONTROL_TOKEN };
    await expect(preflight(target({ control }), { timeoutMs: 5_000 })).resolves.toMatchObject({
      requests: 2,
    });
    const message = await failure(
      target({ control: { ...control, token: 'mt_not-the-token-0123456789' } }),
    );
    expect(message).toMatch(
      /^the control token mt_…6789 is not accepted by http:\/\/emulator\.test\/_mailtwin\/v1 \(401 /,
    );
  });

  it('asks whether --control-url is a control plane when it answers 404', async () => {
    const { target } = await emulator();
    expect(
      await failure(target({ control: { baseUrl: `${ORIGIN}/nothing`, token: CONTROL_TOKEN } })),
    ).toMatch(/^GET http:\/\/emulator\.test\/nothing\/clock answered 404 .*is --control-url/);
  });
});

describe('preflight against a target that does not answer the API', () => {
  it('says the connection was refused, naming the URL', async () => {
    const port = await closedPort();
    expect(await failure(live(`http://127.0.0.1:${port}/openapi/v1`))).toBe(
      `cannot reach http://127.0.0.1:${port}/openapi/v1: connection refused (ECONNREFUSED)`,
    );
  });

  it('says the host name does not resolve', async () => {
    expect(await failure(live('http://no-such-host.invalid/openapi/v1'))).toMatch(
      /^cannot reach http:\/\/no-such-host\.invalid\/openapi\/v1: the host name (does not|could not be) resolve/,
    );
  });

  it('says a server that does not speak HTTP gave no HTTP answer', async () => {
    const port = await listen(createTcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n')));
    expect(await failure(live(`http://127.0.0.1:${port}/openapi/v1`))).toMatch(
      /^cannot reach http:\/\/127\.0\.0\.1:\d+\/openapi\/v1: the answer is not HTTP: .*\(HPE_/,
    );
  });

  it('says TLS failed when an https URL reaches a plain server', async () => {
    const port = await listen(createTcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n')));
    expect(await failure(live(`https://127.0.0.1:${port}/openapi/v1`))).toMatch(
      /^cannot reach https:\/\/127\.0\.0\.1:\d+\/openapi\/v1: TLS error: wrong version number \(ERR_SSL_/,
    );
  });

  it('gives up after --request-timeout on a server that never answers', async () => {
    const port = await listen(createTcpServer(() => {}));
    expect(await failure(live(`http://127.0.0.1:${port}/openapi/v1`), 200)).toBe(
      `cannot reach http://127.0.0.1:${port}/openapi/v1: no answer within 200 ms (--request-timeout)`,
    );
  });

  it('asks whether --base-url is the full versioned endpoint when /mailboxes is 404', async () => {
    const port = await listen(
      createHttpServer((_, response) => {
        response.writeHead(404, { 'Content-Type': 'text/html' });
        response.end('<html><body>Not Found</body></html>');
      }),
    );
    expect(await failure(live(`http://127.0.0.1:${port}/openapi/v1`))).toBe(
      `GET http://127.0.0.1:${port}/openapi/v1/mailboxes answered 404 (text/html: <html><body>Not Found</body></html>): is --base-url the deployment's full versioned endpoint ({base_url}, §5 rule 5)?`,
    );
  });

  it('refuses a 200 that is not JSON, such as a web page', async () => {
    const port = await listen(
      createHttpServer((_, response) => {
        response.writeHead(200, { 'Content-Type': 'text/html' });
        response.end('<html>Welcome</html>');
      }),
    );
    expect(await failure(live(`http://127.0.0.1:${port}/openapi/v1`))).toMatch(
      /answered 200 with text\/html, not JSON: is --base-url the deployment's \{base_url\}\?$/,
    );
  });

  it('names where a redirect goes', async () => {
    const port = await listen(
      createHttpServer((_, response) => {
        response.writeHead(301, { Location: 'https://mail.example.com/openapi/v1/mailboxes' });
        response.end();
      }),
    );
    expect(await failure(live(`http://127.0.0.1:${port}/openapi/v1`))).toMatch(
      /answered 301 to https:\/\/mail\.example\.com\/openapi\/v1\/mailboxes: give the URL it redirects to as --base-url$/,
    );
  });
});
