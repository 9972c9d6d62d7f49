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
  it('is decoded, its raw bytes and webhook data staged a mebibyte a turn, then stored and answered in turns of their own, with the bytes the API reads', async () => {
    const { deps, services, app, secret, hook } = world({ webhook: true });
    const { emails, webhooks } = deps.store;
    const text = 'word '.repeat(300_000); // 1.5 MB: its raw bytes and detail take two turns each
    const raw = Buffer.from(message(text));
    const turns = turnCounter();
    const at = (log: number[]) => () => log.push(turns.now());
    const rawIn: number[] = [];
    const payloadIn: number[] = [];
    const storedIn: number[] = [];
    const decodedIn: number[] = [];
    const detailIn: number[] = [];
    const answeredIn: number[] = [];
    // What the storing turn writes, in pages of the database: the email, its text and its index,
    // where its raw bytes and its webhooks' data (megabytes each) were written with them.
    const pagesInUse = () =>
      (deps.store.db.pragma('page_count', { simple: true }) as number) -
      (deps.store.db.pragma('freelist_count', { simple: true }) as number);
    let pagesBefore = 0;
    let pagesAfter = 0;
    const stageRaw = emails.stageRaw.bind(emails);
    vi.spyOn(emails, 'stageRaw').mockImplementation((...args) => (at(rawIn)(), stageRaw(...args)));
    const part = webhooks.stagePayloadPart.bind(webhooks);
    vi.spyOn(webhooks, 'stagePayloadPart').mockImplementation(
      (...args) => (at(payloadIn)(), part(...args)),
    );
    const insert = emails.insert.bind(emails);
    const given: unknown[] = [];
    vi.spyOn(emails, 'insert').mockImplementation((...args) => {
      at(storedIn)();
      given.push(args[2]);
      pagesBefore = pagesInUse();
      return insert(...args);
    });
    const addDelivery = webhooks.addDelivery.bind(webhooks);
    vi.spyOn(webhooks, 'addDelivery').mockImplementation((...args) => {
      given.push(args[1]);
      const added = addDelivery(...args);
      pagesAfter = pagesInUse();
      return added;
    });
    // The parsed text comes back from the render thread as bytes, decoded here.
    const decode = TextDecoder.prototype.decode;
    vi.spyOn(TextDecoder.prototype, 'decode').mockImplementation(function (
      this: InstanceType<typeof TextDecoder>,
      input,
      options,
    ) {
      if ((input?.byteLength ?? 0) >= text.length) at(decodedIn)();
      return decode.call(this, input, options);
    });
    // The detail (the rest, its text's JSON made on the render thread) serialised around the text.
    const stringify = JSON.stringify;
    vi.spyOn(JSON, 'stringify').mockImplementation((value, ...rest) => {
      if (typeof value === 'object' && value !== null && 'text' in value) at(detailIn)();
      return stringify(value, ...(rest as [undefined]));
    });
    let answer: Response;
    try {
      answer = await inject(app, raw.toString('utf8'));
      at(answeredIn)();
    } finally {
      vi.restoreAllMocks();
      turns.stop();
    }
    expect(answer.status).toBe(201);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const distinct = (log: number[]) => [...new Set(log)];
    const perTurn = (log: number[]) => distinct(log).map((turn) => log.filter((t) => t === turn));
    expect(decodedIn).toHaveLength(1);
    expect(detailIn).toHaveLength(1);
    expect(storedIn).toHaveLength(1);
    // 64 KiB parts, at most 16 (1 MiB) a turn: the 1.5 MB raw message and its detail take two.
    expect(rawIn).toHaveLength(Math.ceil(raw.length / 65_536));
    expect(distinct(rawIn)).toHaveLength(2);
    expect(distinct(payloadIn)).toHaveLength(2);
    for (const parts of [...perTurn(rawIn), ...perTurn(payloadIn)])
      expect(parts.length).toBeLessThanOrEqual(16);
    // Each step in a turn after the one before.
    const order = [
      decodedIn,
      distinct(rawIn),
      detailIn,
      distinct(payloadIn),
      storedIn,
      answeredIn,
    ].flat();
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(order.length);
    // The storing turn names the staged bytes and writes about the text alone (1.5 MB, not 4.5).
    expect(given).toEqual([{ stagedFor: expect.any(String) }, { payload: expect.any(Number) }]);
    const pageSize = deps.store.db.pragma('page_size', { simple: true }) as number;
    expect((pagesAfter - pagesBefore) * pageSize).toBeLessThan(1.5 * text.length);
    // D-4: the answer is the detail exactly as the API renders it, byte for byte; the webhook
    // is sent those bytes; the raw download is the message as it came.
    const body = Buffer.from(await answer.arrayBuffer());
    const { id } = JSON.parse(body.toString('utf8')) as { id: string; text: string };
    const read = await app.request(`/openapi/v1/emails/${id}`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(body.equals(Buffer.from(await read.arrayBuffer()))).toBe(true);
    expect((JSON.parse(body.toString('utf8')) as { text: string }).text).toBe(text);
    const [delivery] = webhooks.recentDeliveries(hook?.id ?? '', 1);
    expect(delivery?.emailId).toBe(id);
    expect(webhooks.dataOf(delivery?.id ?? '')?.equals(body)).toBe(true);
    const stored = deps.store.emails.get(id);
    expect(stored).toBeDefined();
    if (stored !== undefined)
      expect((await services.emails.source(stored)).raw.equals(raw)).toBe(true);
    await services.dispatcher.runDue();
  });

  it('keeps no webhook data when no webhook hears of it, and its raw bytes with the email', async () => {
    const { deps, app } = world();
    const count = (table: string) =>
      deps.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    const answer = await inject(app, message(TEXT));
    expect(answer.status).toBe(201);
    expect(count('delivery_payloads')).toBe(0);
    expect(count('delivery_payload_parts')).toBe(0);
    const { id } = (await answer.json()) as { id: string };
    expect(deps.store.db.prepare('SELECT DISTINCT email_id FROM email_raw').pluck().all()).toEqual([
      id,
    ]);
  });

  it('leaves nothing behind when it fails between its turns: no email, no delivery, no staged bytes', async () => {
    const { deps, app } = world({ webhook: true });
    const count = (table: string) =>
      (deps.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number) ?? 0;
    // The control plane's reset, while the webhooks' data is being staged: the mailbox is gone.
    const part = deps.store.webhooks.stagePayloadPart.bind(deps.store.webhooks);
    let reset = false;
    vi.spyOn(deps.store.webhooks, 'stagePayloadPart').mockImplementation((...args) => {
      if (!reset) {
        expect(count('email_raw')).toBeGreaterThan(0);
        deps.store.reset();
        reset = true;
      }
      return part(...args);
    });
    let answer: Response;
    try {
      answer = await inject(app, message(TEXT));
    } finally {
      vi.restoreAllMocks();
    }
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { code: string }).code).toBe('mailbox_not_found');
    for (const table of ['emails', 'email_raw', 'deliveries', 'delivery_payloads'])
      expect(count(table), table).toBe(0);
    expect(count('delivery_payload_parts')).toBe(0);
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
