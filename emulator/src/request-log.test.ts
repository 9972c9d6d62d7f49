import { describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from './app.ts';
import { ControllableClock } from './clock.ts';
import { DEFAULT_FIXTURES } from './cli-options.ts';
import { loadFixtureFile } from './fixtures/load-fixture.ts';
import { RequestLog, bufferedStdout, type LogFormat } from './request-log.ts';
import type { Connector } from './webhook-delivery/connector.ts';
import type { Resolver } from './webhook-delivery/endpoint-guard.ts';

const DEMO_KEY = 'sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU';
const TOKEN = 'mt_request-log';

/** The demo emulator behind a started log that writes into `lines`; webhooks answer 200. */
async function logged(format: LogFormat) {
  const connector: Connector = async () => ({ status: 200, body: 'ok' });
  const resolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
  const deps = defaultDeps({ controlToken: TOKEN, connector, resolver });
  const services = createServices(deps);
  await loadFixtureFile(services, DEFAULT_FIXTURES);
  const lines: string[] = [];
  const log = new RequestLog(services, format, (line) => lines.push(line));
  const fetch = log.wrap(createApp(deps, services).fetch);
  log.start();
  const call = (path: string, init: RequestInit = {}) =>
    fetch(new Request(`http://127.0.0.1${path}`, init));
  return { services, lines, log, call };
}

/** Lets listeners queued as microtasks run (setImmediate comes after every microtask). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the request log', () => {
  it('prints method, path, status, ms and key name, in that order, for API and control requests only', async () => {
    const { lines, call } = await logged('text');
    await call('/openapi/v1/mailboxes', { headers: { authorization: `Bearer ${DEMO_KEY}` } });
    await call('/openapi/v1/mailboxes', { headers: { authorization: 'Bearer sk-nope' } });
    await call('/_mailtwin/v1/clock', { headers: { authorization: `Bearer ${TOKEN}` } });
    await call('/openapi/openapi.json');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^GET \/openapi\/v1\/mailboxes 200 \d+(\.\d)?ms "Demo app"\n$/);
    expect(lines[1]).toMatch(/^GET \/openapi\/v1\/mailboxes 401 \d+(\.\d)?ms -\n$/);
    expect(lines[2]).toMatch(/^GET \/_mailtwin\/v1\/clock 200 \d+(\.\d)?ms control\n$/);
  });

  it('prints a line per delivered email and per webhook attempt with its status, ms and signature', async () => {
    const { lines, services, call } = await logged('text');
    services.webhooks.create({
      ownerId: 'own_northwind',
      url: 'https://hooks.example/in',
      scope: 'follow-owner',
    });
    const sent = await call('/_mailtwin/v1/inbound', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        mailbox: 'sales@northwind.test',
        from: 'buyer@shop.example',
        subject: 'Order 7',
        text: 'Hello',
      }),
    });
    expect(sent.status).toBe(201);
    await services.dispatcher.runDue();
    await settle();
    expect(lines.find((l) => l.startsWith('email '))).toMatch(
      /^email \S+ to sales@northwind\.test \(inbox\) from buyer@shop\.example "Order 7"\n$/,
    );
    expect(lines.find((l) => l.startsWith('webhook '))).toMatch(
      /^webhook email\.received dlv_\S+ attempt 1 to wh_\S+: 200 \d+ms sha256=[0-9a-f]{64}\n$/,
    );
  });

  it("prints a delivered email's line without reading its body back (issue 27 item 1)", async () => {
    const { lines, services, call } = await logged('text');
    // A body of megabytes decoded again only to print the subject held the storing turn longer.
    const get = vi.spyOn(services.deps.store.emails, 'get');
    const sent = await call('/_mailtwin/v1/inbound', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        mailbox: 'sales@northwind.test',
        from: 'Buyer <buyer@shop.example>',
        subject: 'Order 8',
        text: 'A long order. '.repeat(1000),
      }),
    });
    expect(sent.status).toBe(201);
    await settle();
    expect(get).not.toHaveBeenCalled();
    expect(lines.find((l) => l.startsWith('email '))).toMatch(
      /^email \S+ to sales@northwind\.test \(inbox\) from buyer@shop\.example "Order 8"\n$/,
    );
  });

  it('prints JSON lines with --log json, and nothing once stopped', async () => {
    const { lines, log, call } = await logged('json');
    await call('/openapi/v1/mailboxes', { headers: { authorization: `Bearer ${DEMO_KEY}` } });
    const entry = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(Object.keys(entry)).toEqual(['time', 'type', 'method', 'path', 'status', 'ms', 'key']);
    expect(entry).toMatchObject({ type: 'request', method: 'GET', status: 200, key: 'Demo app' });
    log.stop();
    await call('/openapi/v1/mailboxes', { headers: { authorization: `Bearer ${DEMO_KEY}` } });
    expect(lines).toHaveLength(1);
  });

  it('names the key the API decided, without looking the key up again', async () => {
    const { lines, services, call } = await logged('text');
    const auth = { authorization: `Bearer ${DEMO_KEY}` };
    await call('/openapi/v1/mailboxes', { headers: auth });
    const directory = services.deps.store.directory;
    const findKeyByLookup = directory.findKeyByLookup.bind(directory);
    let lookups = 0;
    directory.findKeyByLookup = (lookup) => {
      lookups += 1;
      return findKeyByLookup(lookup);
    };
    await call('/openapi/v1/mailboxes', { headers: auth });
    expect(lines[1]).toMatch(/ "Demo app"\n$/);
    expect(lookups).toBe(0);
  });

  it('names the key of a request with a body, and of one refused after the key was accepted', async () => {
    const { lines, call } = await logged('text');
    const headers = { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' };
    await call('/openapi/v1/emails/send', { method: 'POST', headers, body: '{}' });
    await call('/openapi/v1/emails/nope', { headers });
    expect(lines[0]).toMatch(/^POST \/openapi\/v1\/emails\/send 400 \S+ "Demo app"\n$/);
    expect(lines[1]).toMatch(/^GET \/openapi\/v1\/emails\/nope 404 \S+ "Demo app"\n$/);
  });

  it('hands an answer made at once back as it is, logged at once, and a promised one when it comes (issue 31 item 1)', async () => {
    const lines: string[] = [];
    const log = new RequestLog(createServices(defaultDeps()), 'text', (line) => lines.push(line));
    log.start();
    const answer = new Response('{}', { status: 201 });
    const request = new Request('http://127.0.0.1/_mailtwin/v1/clock');
    // No promise of its own: the server can write the answer without awaiting it.
    expect(log.wrap((_request: Request) => answer)(request)).toBe(answer);
    expect(lines).toEqual([
      expect.stringMatching(/^GET \/_mailtwin\/v1\/clock 201 \S+ms control\n$/),
    ]);
    const promised = log.wrap((_request: Request) => Promise.resolve(answer))(request);
    expect(lines).toHaveLength(1);
    expect(await promised).toBe(answer);
    expect(lines).toHaveLength(2);
    const failed = log.wrap((_request: Request) => Promise.reject(new Error('no')))(request);
    await expect(failed).rejects.toThrow('no');
    expect(lines).toHaveLength(2);
    log.stop();
  });

  it('reads no clock for a text line, which shows no time (issue 31 item 1)', async () => {
    const deps = defaultDeps();
    const now = vi.spyOn(deps.clock, 'now');
    const lines: string[] = [];
    const log = new RequestLog(createServices(deps), 'text', (line) => lines.push(line));
    const fetch = log.wrap((_request: Request) => new Response('{}'));
    log.start();
    fetch(new Request('http://127.0.0.1/_mailtwin/v1/clock'));
    log.smtpMessage({ from: 'a@b.test', bytes: 1, delivered: [] });
    expect(lines).toEqual([
      expect.stringMatching(/^GET \/_mailtwin\/v1\/clock 200 \S+ms control\n$/),
      'smtp from a@b.test 1 bytes delivered to \n',
    ]);
    expect(now).not.toHaveBeenCalled();
    log.stop();
  });

  it('reads a plain URL without parsing it and writes the time of the lines of one second once', async () => {
    const at = '2026-05-01T10:00:00.000Z';
    let now = Date.parse(at);
    const deps = defaultDeps({ clock: new ControllableClock(() => now++) });
    const lines: string[] = [];
    const log = new RequestLog(createServices(deps), 'json', (line) => lines.push(line));
    const fetch = log.wrap(async (_request: Request) => new Response('{}'));
    log.start();
    const requests = [
      new Request('http://127.0.0.1:3000/openapi/v1/emails?mailbox=hello%40acme.test&q=a+b'),
      new Request('http://127.0.0.1:3000/openapi/v1/emails/em_1'),
    ];
    const urls = vi.spyOn(globalThis, 'URL');
    const times = vi.spyOn(Date.prototype, 'toISOString');
    for (const request of requests) await fetch(request);
    const counts = { urls: urls.mock.calls.length, times: times.mock.calls.length };
    vi.restoreAllMocks();
    expect(counts).toEqual({ urls: 0, times: 1 });
    expect(lines.map((line) => JSON.parse(line) as { time: string; path: string })).toMatchObject([
      { time: at, path: '/openapi/v1/emails?mailbox=hello%40acme.test&q=a+b' },
      { time: '2026-05-01T10:00:00.001Z', path: '/openapi/v1/emails/em_1' },
    ]);
  });

  it('writes every time as toISOString does', () => {
    const lines: string[] = [];
    let now = 0;
    const deps = defaultDeps({ clock: new ControllableClock(() => now) });
    const log = new RequestLog(createServices(deps), 'json', (line) => lines.push(line));
    log.start();
    const instants = [0, 7, 999, 1000, 1_700_000_000_042, 253_402_300_799_999, 253_402_300_800_000];
    for (const instant of [...instants, 1_700_000_000_043, 1_700_000_001_001]) {
      now = instant;
      log.smtpMessage({ from: 'a@b.test', bytes: 1, delivered: [] });
    }
    expect(lines.map((line) => (JSON.parse(line) as { time: string }).time)).toEqual(
      [...instants, 1_700_000_000_043, 1_700_000_001_001].map((ms) => new Date(ms).toISOString()),
    );
  });

  it('writes the lines of one turn of the event loop together, in order, once it turns', async () => {
    const writes: string[] = [];
    const write = bufferedStdout((text) => writes.push(text));
    write('one\n');
    write('two\n');
    expect(writes).toEqual([]);
    await settle();
    write('three\n');
    await settle();
    expect(writes).toEqual(['one\ntwo\n', 'three\n']);
  });

  it('prints a line per SMTP message: where it went, or why it was refused', async () => {
    const { services, lines, log } = await logged('text');
    const email = services.inbound.injectJson({
      mailbox: 'hello@acme.test',
      from: 'carol@partner.test',
      subject: 'By SMTP',
      text: 'x',
    });
    lines.length = 0;
    log.smtpMessage({ from: 'carol@partner.test', delivered: [email], bytes: 321 });
    log.smtpMessage({
      from: '',
      delivered: [],
      bytes: 99_999,
      refused: { code: 552, reason: '5.3.4 Message exceeds the limit of 10000 bytes' },
    });
    expect(lines).toEqual([
      'smtp from carol@partner.test 321 bytes delivered to hello@acme.test\n',
      'smtp from <> 99999 bytes refused: 552 5.3.4 Message exceeds the limit of 10000 bytes\n',
    ]);
  });
});
