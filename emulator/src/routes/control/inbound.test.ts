import { afterAll, describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../../app.ts';
import { sharedRenderPool } from '../../mime/render-pool.ts';
import type { Connector } from '../../webhook-delivery/connector.ts';
import type { Resolver } from '../../webhook-delivery/endpoint-guard.ts';

afterAll(() => sharedRenderPool.close());

const TOKEN = 'inbound-token';

/** alice@acme.test, a key for it and, with `webhook`, a webhook that hears its mail (200s). */
function world({ webhook = false } = {}) {
  const connector: Connector = async () => ({ status: 200, body: 'ok' });
  const resolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
  const deps = defaultDeps({ logError: () => {}, controlToken: TOKEN, connector, resolver });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  services.directory.createMailbox({ address: 'alice@acme.test' });
  services.directory.grant(owner.id, 'alice@acme.test');
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'app',
    scope: 'follow-owner',
  });
  const hook = webhook
    ? services.webhooks.create({
        ownerId: owner.id,
        url: 'https://hooks.example/in',
        scope: 'follow-owner',
      }).webhook
    : undefined;
  return { deps, services, app: createApp(deps, services), secret, hook };
}

/** Counts turns of the event loop: one `setImmediate` a turn, until stopped. */
function turnCounter(): { now: () => number; stop: () => void } {
  let turn = 0;
  let running = true;
  const tick = () => {
    turn += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turn, stop: () => (running = false) };
}

const TEXT = 'word '.repeat(40_000); // 200 kB: parsed on a render thread

const message = (text: string) =>
  'From: Bob <bob@partner.test>\r\nTo: alice@acme.test\r\nSubject: Raw\r\n' +
  `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}`;

const inject = (app: ReturnType<typeof createApp>, raw: string) =>
  app.request('/_mailtwin/v1/inbound?mailbox=alice@acme.test', {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'message/rfc822' },
    body: raw,
  });

describe('a raw message received through the control plane (issue 27 item 1)', () => {
  it('is decoded, stored and answered in turns of their own, with the bytes the API reads', async () => {
    const { deps, app, secret } = world();
    const turns = turnCounter();
    let storedIn: number | undefined;
    const insert = deps.store.emails.insert.bind(deps.store.emails);
    vi.spyOn(deps.store.emails, 'insert').mockImplementation((...args) => {
      storedIn = turns.now();
      return insert(...args);
    });
    // The parsed text comes back from the render thread as bytes, decoded here.
    const decodedIn: number[] = [];
    const decode = TextDecoder.prototype.decode;
    vi.spyOn(TextDecoder.prototype, 'decode').mockImplementation(function (
      this: InstanceType<typeof TextDecoder>,
      input,
      options,
    ) {
      if ((input?.byteLength ?? 0) >= TEXT.length) decodedIn.push(turns.now());
      return decode.call(this, input, options);
    });
    // The text serialised as JSON, and the detail (the rest) serialised around it for the answer.
    const encodedIn: number[] = [];
    const answeredIn: number[] = [];
    const stringify = JSON.stringify;
    vi.spyOn(JSON, 'stringify').mockImplementation((value, ...rest) => {
      if (value === TEXT) encodedIn.push(turns.now());
      if (typeof value === 'object' && value !== null && 'text' in value)
        answeredIn.push(turns.now());
      return stringify(value, ...(rest as [undefined]));
    });
    let answer: Response;
    try {
      answer = await inject(app, message(TEXT));
    } finally {
      vi.restoreAllMocks();
      turns.stop();
    }
    expect(answer.status).toBe(201);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(decodedIn).toHaveLength(1);
    // Its JSON string was made on the render thread as it parsed, never here.
    expect(encodedIn).toEqual([]);
    expect(answeredIn).toHaveLength(1);
    expect(storedIn).toBeGreaterThan(decodedIn[0] as number);
    expect(answeredIn[0]).toBeGreaterThan(storedIn as number);
    // D-4: the answer is the detail exactly as the API renders it, byte for byte.
    const body = await answer.text();
    const { id } = JSON.parse(body) as { id: string; text: string };
    const read = await app.request(`/openapi/v1/emails/${id}`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(body).toBe(await read.text());
    expect((JSON.parse(body) as { text: string }).text).toBe(TEXT);
  });

  it('gives its webhooks the bytes of the detail, made once with the answer', async () => {
    const { deps, services, app, secret, hook } = world({ webhook: true });
    // Non-ASCII, an escape and HTML: every piece serialised as JSON.stringify does.
    const html = `<p>Grüße "aus" Århus\\ ✓</p>${'<i>y</i>'.repeat(10_000)}`;
    const raw =
      'From: Bob <bob@partner.test>\r\nTo: alice@acme.test\r\nSubject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=\r\n' +
      'MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n' +
      `--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nTab\there "quoted" ✓\r\n${TEXT}\r\n` +
      `--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n--b--\r\n`;
    const stringify = vi.spyOn(JSON, 'stringify');
    const answer = await inject(app, raw);
    const large = stringify.mock.calls.filter(
      ([value]) => (value as { text?: unknown } | null)?.text !== undefined,
    );
    stringify.mockRestore();
    expect(answer.status).toBe(201);
    const body = Buffer.from(await answer.arrayBuffer());
    const { id } = JSON.parse(body.toString('utf8')) as { id: string };
    const read = await app.request(`/openapi/v1/emails/${id}`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(body.equals(Buffer.from(await read.arrayBuffer()))).toBe(true);
    const [delivery] = deps.store.webhooks.recentDeliveries(hook?.id ?? '', 1);
    expect(delivery?.emailId).toBe(id);
    expect(deps.store.webhooks.dataOf(delivery?.id ?? '')?.equals(body)).toBe(true);
    // The whole detail, text inside, was never serialised: only the rest around it, once.
    expect(large.map(([value]) => typeof (value as { text: unknown }).text)).toEqual(['string']);
    expect((large[0]?.[0] as { text: string }).text).not.toContain('word word');
    await services.dispatcher.runDue();
  });
});
