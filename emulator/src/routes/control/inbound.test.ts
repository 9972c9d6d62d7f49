import { afterAll, describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../../app.ts';
import { sharedRenderPool } from '../../mime/render-pool.ts';

afterAll(() => sharedRenderPool.close());

const TOKEN = 'inbound-token';

function world() {
  const deps = defaultDeps({ logError: () => {}, controlToken: TOKEN });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  services.directory.createMailbox({ address: 'alice@acme.test' });
  services.directory.grant(owner.id, 'alice@acme.test');
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'app',
    scope: 'follow-owner',
  });
  return { deps, app: createApp(deps, services), secret };
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

describe('a raw message received through the control plane (issue 27 item 1)', () => {
  it('is decoded, stored and answered in turns of their own, with the bytes the API reads', async () => {
    const { deps, app, secret } = world();
    const text = 'word '.repeat(40_000);
    const raw =
      'From: Bob <bob@partner.test>\r\nTo: alice@acme.test\r\nSubject: Raw\r\n' +
      `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}`;
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
    const decoding = vi.spyOn(TextDecoder.prototype, 'decode').mockImplementation(function (
      this: InstanceType<typeof TextDecoder>,
      input,
      options,
    ) {
      if ((input?.byteLength ?? 0) >= text.length) decodedIn.push(turns.now());
      return decode.call(this, input, options);
    });
    // Encoding the answer (the detail with its whole text) is the other large piece of work.
    const encodedIn: number[] = [];
    const stringify = JSON.stringify;
    const spy = vi.spyOn(JSON, 'stringify').mockImplementation((value, ...rest) => {
      if ((value as { text?: unknown } | null)?.text === text) encodedIn.push(turns.now());
      return stringify(value, ...(rest as [undefined]));
    });
    let answer: Response;
    try {
      answer = await app.request('/_mailtwin/v1/inbound?mailbox=alice@acme.test', {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'message/rfc822' },
        body: raw,
      });
    } finally {
      spy.mockRestore();
      decoding.mockRestore();
      turns.stop();
    }
    expect(answer.status).toBe(201);
    expect(decodedIn).toHaveLength(1);
    expect(storedIn).toBeGreaterThan(decodedIn[0] as number);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(storedIn).toBeDefined();
    expect(encodedIn).toHaveLength(1);
    expect(encodedIn[0]).toBeGreaterThan(storedIn as number);
    // D-4: the answer is the detail exactly as the API renders it, byte for byte.
    const body = await answer.text();
    const { id } = JSON.parse(body) as { id: string; text: string };
    const read = await app.request(`/openapi/v1/emails/${id}`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(body).toBe(await read.text());
    expect((JSON.parse(body) as { text: string }).text).toBe(text);
  });
});
