import { afterAll, describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import { sharedRenderPool } from '../mime/render-pool.ts';

afterAll(() => sharedRenderPool.close());

/** The made-up origin these tests call the app at, served as `--allowed-hosts mail.test` would. */
const HOSTS = { allowed: ['mail.test'] };

function world() {
  const deps = defaultDeps({ logError: () => {}, hosts: HOSTS });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  for (const address of ['alice@acme.test', 'bob@acme.test', 'carol@acme.test']) {
    services.directory.createMailbox({ address });
    services.directory.grant(owner.id, address);
  }
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'app',
    scope: 'follow-owner',
  });
  const app = createApp(deps, services);
  return { deps, app, headers: { Authorization: `Bearer ${secret}` } };
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

describe('storing a send (issue 27 item 1)', () => {
  it('stores the outbox entry, the sent copy and each inbox copy in turns of their own, and answers in a later one', async () => {
    const { deps, app, headers } = world();
    const turns = turnCounter();
    const stored: { folder: string; turn: number; outbox: number }[] = [];
    deps.events.subscribe((event) => {
      if (event.type === 'email.stored')
        stored.push({
          folder: event.folder,
          turn: turns.now(),
          outbox: deps.store.outbox.list().length,
        });
    });
    const response = await app.request('http://mail.test/openapi/v1/emails/send', {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        from: 'alice@acme.test',
        to: 'bob@acme.test',
        cc: ['carol@acme.test', 'dave@partner.test'],
        subject: 'Turns',
        text: 'Each copy of a large body costs tens of milliseconds to store.',
      }),
    });
    const answeredAt = turns.now();
    turns.stop();
    expect(response.status).toBe(201);
    // The outbox entry is there when the sent copy is announced (a wait for it wakes on that).
    expect(stored.map(({ folder, outbox }) => [folder, outbox])).toEqual([
      ['sent', 1],
      ['inbox', 1],
      ['inbox', 1],
    ]);
    const storedIn = stored.map((s) => s.turn);
    expect(new Set(storedIn).size).toBe(3);
    expect(answeredAt).toBeGreaterThan(Math.max(...storedIn));
  });

  it("writes a large message's outbox entry in turns of their own: its lower-cased text, its bytes, the entry", async () => {
    const { deps, app, headers } = world();
    const text = 'Word '.repeat(20_000); // 100 kB, over the 64 KiB from which the copy waits
    const turns = turnCounter();
    const lowered: number[] = [];
    const lower = String.prototype.toLowerCase;
    const spy = vi.spyOn(String.prototype, 'toLowerCase').mockImplementation(function (
      this: string,
    ) {
      if (this.length >= text.length) lowered.push(turns.now());
      return lower.call(this);
    });
    const staged: number[] = [];
    const stage = deps.store.outbox.stage.bind(deps.store.outbox);
    vi.spyOn(deps.store.outbox, 'stage').mockImplementation((...args) => {
      staged.push(turns.now());
      return stage(...args);
    });
    const added: number[] = [];
    const add = deps.store.outbox.add.bind(deps.store.outbox);
    vi.spyOn(deps.store.outbox, 'add').mockImplementation((...args) => {
      added.push(turns.now());
      return add(...args);
    });
    try {
      const response = await app.request('http://mail.test/openapi/v1/emails/send', {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          from: 'alice@acme.test',
          to: 'dave@partner.test',
          subject: 'S',
          text,
        }),
      });
      expect(response.status, await response.clone().text()).toBe(201);
    } finally {
      spy.mockRestore();
      turns.stop();
    }
    expect(added).toHaveLength(1);
    expect(lowered).toHaveLength(1);
    expect(staged).toHaveLength(1);
    expect(lowered[0]).toBeLessThan(staged[0] as number);
    expect(staged[0]).toBeLessThan(added[0] as number);
    const [entry] = deps.store.outbox.find({ text: 'word word' }).entries;
    expect(entry?.recipients).toEqual(['dave@partner.test']);
    const captured = deps.store.outbox.get(entry?.id ?? '');
    expect(captured?.raw.length).toBe(entry?.size);
    expect(captured?.raw.toString('latin1')).toContain('Word Word');
  });
});
