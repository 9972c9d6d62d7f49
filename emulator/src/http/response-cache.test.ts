import { describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';

/** One owner granted two mailboxes; a follow-owner key and a key for mailbox a only. */
function world(responseCache = true) {
  const deps = defaultDeps({ logError: () => {}, responseCache });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  for (const address of ['a@acme.test', 'b@acme.test']) {
    services.directory.createMailbox({ address });
    services.directory.grant(owner.id, address);
    services.inbound.injectJson({ mailbox: address, from: 'x@partner.test', subject: address });
  }
  const all = services.directory.createKey({
    ownerId: owner.id,
    name: 'all',
    scope: 'follow-owner',
  });
  const onlyA = services.directory.createKey({
    ownerId: owner.id,
    name: 'only a',
    scope: 'selected-mailbox',
    mailboxes: ['a@acme.test'],
  });
  const app = createApp(deps, services);
  const emails = services.deps.store.emails;
  const listJson = emails.listJson.bind(emails);
  let queries = 0;
  emails.listJson = (...args) => {
    queries += 1;
    return listJson(...args);
  };
  const list = async (mailbox: string, secret = all.secret) => {
    const response = await app.request(`/openapi/v1/emails?mailbox=${mailbox}`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    const body = (await response.json()) as { emails?: { subject: string }[] };
    return { status: response.status, subjects: body.emails?.map((e) => e.subject) };
  };
  const mailboxes = async () =>
    (
      await app.request('/openapi/v1/mailboxes', {
        headers: { Authorization: `Bearer ${all.secret}` },
      })
    ).status;
  return { services, owner, onlyA, list, mailboxes, queries: () => queries };
}

describe('the response cache', () => {
  it('answers a list request asked again after its answer was kept without querying, with the same bytes', async () => {
    const { list, queries } = world();
    const first = await list('a@acme.test');
    expect(await list('a@acme.test')).toEqual(first);
    expect(await list('a@acme.test')).toEqual(first);
    expect(await list('a@acme.test')).toEqual(first);
    expect(first).toEqual({ status: 200, subjects: ['a@acme.test'] });
    expect(queries()).toBe(2);
  });

  it('counts the GETs it answered and the ones it passed on', async () => {
    const { services, list } = world();
    await list('a@acme.test');
    await list('a@acme.test');
    await list('a@acme.test');
    await list('b@acme.test');
    expect(services.responseCache.counts).toEqual({ hits: 1, misses: 3 });
  });

  it('keeps an answer only the second time its key and URL are asked at one data version', async () => {
    const { services, onlyA, list } = world();
    const cache = services.responseCache;
    // Pages asked once (another mailbox, another key) keep no bytes.
    await list('a@acme.test');
    await list('b@acme.test');
    await list('a@acme.test', onlyA.secret);
    expect(cache.kept).toEqual({ answers: 0, bytes: 0, askedOnce: 3 });
    await list('a@acme.test');
    expect(cache.kept).toMatchObject({ answers: 1, askedOnce: 2 });
    expect(cache.kept.bytes).toBeGreaterThan(0);
    // A write forgets both: the next ask is a first one again.
    services.inbound.injectJson({ mailbox: 'b@acme.test', from: 'y@partner.test', subject: 'n' });
    await list('a@acme.test');
    expect(cache.kept).toEqual({ answers: 0, bytes: 0, askedOnce: 1 });
    expect(cache.counts).toEqual({ hits: 0, misses: 5 });
  });

  it('forgets by dropping its containers whole, never clearing them in place', async () => {
    // A Map or Set that lived long enough to be old keeps its next entries in the old
    // generation's table: young answers referenced from there survive young collections and
    // are promoted, and a full collection frees them (over sockets, 12-20 mark-compacts in 6 s
    // on the 10,000-email mix with `clear()`, none with fresh containers).
    const { services, list } = world();
    const cache = services.responseCache;
    await list('a@acme.test');
    await list('a@acme.test');
    const held = { answers: cache['answers'], askedOnce: cache['askedOnce'] };
    expect(held.answers.size).toBe(1);
    services.inbound.injectJson({ mailbox: 'b@acme.test', from: 'y@partner.test', subject: 'n' });
    await list('b@acme.test');
    expect(cache['answers']).not.toBe(held.answers);
    expect(cache['askedOnce']).not.toBe(held.askedOnce);
    // The old ones are left as they were, to die with what they hold.
    expect(held.answers.size).toBe(1);
  });

  it('remembers at most 1,024 pages asked once, then starts again', async () => {
    const { services, list } = world();
    for (let n = 1; n <= 1025; n += 1) await list(`a@acme.test&limit=${(n % 100) + 1}&q=w${n}`);
    expect(services.responseCache.kept).toEqual({ answers: 0, bytes: 0, askedOnce: 1 });
  });

  it('switched off (--no-response-cache), queries every request and answers the same', async () => {
    const cached = world();
    const off = world(false);
    const first = await off.list('a@acme.test');
    expect(await off.list('a@acme.test')).toEqual(first);
    expect(first).toEqual(await cached.list('a@acme.test'));
    expect(off.queries()).toBe(2);
    expect(off.services.responseCache.counts).toEqual({ hits: 0, misses: 0 });
    // Nothing at the edge reads the data version: no answer is kept against it.
    const reads = vi.spyOn(off.services.deps.store.version, 'current');
    expect(await off.mailboxes()).toBe(200);
    expect(reads).not.toHaveBeenCalled();
  });

  it('answers after any write what the data now holds', async () => {
    const { services, list } = world();
    await list('a@acme.test');
    services.inbound.injectJson({ mailbox: 'a@acme.test', from: 'y@partner.test', subject: 'new' });
    expect((await list('a@acme.test')).subjects).toEqual(['new', 'a@acme.test']);
  });

  it("never serves one key's answer to another key", async () => {
    const { onlyA, list } = world();
    expect((await list('b@acme.test')).status).toBe(200);
    expect((await list('b@acme.test', onlyA.secret)).status).toBe(404);
  });

  it('follows a revoked grant on the very next request', async () => {
    const { services, owner, list } = world();
    expect((await list('b@acme.test')).status).toBe(200);
    services.directory.revoke(owner.id, 'b@acme.test');
    expect((await list('b@acme.test')).status).toBe(404);
  });

  it('reads the data version once for a request it answers, twice for a page it computes', async () => {
    const { services, list } = world();
    const reads = vi.spyOn(services.deps.store.version, 'current');
    await list('a@acme.test');
    // The cache's lookup, and the page's read; the cache takes the page's version from the route.
    expect(reads).toHaveBeenCalledTimes(2);
    await list('a@acme.test'); // kept, the second time it is asked
    expect(reads).toHaveBeenCalledTimes(4);
    await list('a@acme.test');
    expect(reads).toHaveBeenCalledTimes(5);
  });

  it('keeps no answer read from other data than it looked the request up at', async () => {
    const { services, list, queries } = world();
    const emails = services.deps.store.emails;
    const listJson = emails.listJson.bind(emails);
    await list('a@acme.test'); // asked once: the next ask's answer is the one to keep
    let writeFirst = true;
    emails.listJson = (...args) => {
      // A write between the cache's lookup and the route's read (mail stored meanwhile).
      if (writeFirst)
        services.inbound.injectJson({
          mailbox: 'b@acme.test',
          from: 'z@partner.test',
          subject: 'z',
        });
      writeFirst = false;
      return listJson(...args);
    };
    await list('a@acme.test');
    await list('a@acme.test');
    expect(queries()).toBe(3);
    expect(services.responseCache.counts).toEqual({ hits: 0, misses: 3 });
  });
});
