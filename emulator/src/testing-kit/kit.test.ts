// mailtwin/testing (issue 30 item 4): the helper a client developer's suite imports, here from
// source, in process. The package test imports it from the installed tarball; the recipes
// (tests/readme/testing-kit.test.ts) run it under vitest and jest with parallel workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMailtwin, MailtwinError, startMailtwin, type RunningMailtwin } from './index.ts';

let server: RunningMailtwin;
beforeAll(async () => {
  server = await startMailtwin();
});
afterAll(() => server.stop());

describe('mailtwin/testing', () => {
  it('makes a tenant whose mail arrives through waitForMail and no other tenant sees', async () => {
    const mailtwin = connectMailtwin(server.env); // as a worker does
    const [a, b] = await Promise.all([mailtwin.createTenant(), mailtwin.createTenant()]);
    // A generous deadline: the first send of a process starts its render threads.
    const waiting = a.waitForMail(
      { mailbox: a.mailboxes[1]!, subject: 'welcome' },
      { timeoutMs: 60_000 },
    );
    await a.send({
      to: a.mailboxes[1]!,
      cc: ['customer@example.com'],
      subject: 'Welcome',
      text: 'Hi',
    });
    expect((await waiting).map((m) => m.subject)).toEqual(['Welcome']);
    expect((await a.waitForOutbox({ to: 'customer@' }))[0]?.recipients).toEqual([
      'customer@example.com',
    ]);
    expect((await b.readOutbox()).entries).toEqual([]);
    const timedOut = await b.waitForMail({}, { timeoutMs: 0 }).catch((error: unknown) => error);
    expect(timedOut).toBeInstanceOf(MailtwinError);
    expect(timedOut).toMatchObject({ status: 408, code: 'wait_timeout' });
    await Promise.all([a.delete(), b.delete()]);
    expect(await mailtwin.control('GET', '/tenants')).toEqual([]);
  });

  it('reads the outbox a page at a time, and the raw message', async () => {
    const t = await server.mailtwin.createTenant();
    for (const n of [1, 2, 3])
      await t.send({ to: `r${n}@example.com`, subject: `N${n}`, text: 'x' });
    const first = await t.readOutbox({}, { limit: 2 });
    expect(first.entries.map((e) => e.subject)).toEqual(['N3', 'N2']);
    const second = await t.readOutbox({}, { limit: 2, cursor: first.nextCursor as string });
    expect(second).toMatchObject({ entries: [{ subject: 'N1' }], nextCursor: null });
    expect(await server.mailtwin.readOutboxEml(second.entries[0]!.id)).toMatch(/^Subject: N1$/m);
    await t.delete();
  });

  it('moves the clock and arms, lists and clears chaos', async () => {
    const before = Date.parse(
      (await server.mailtwin.control<{ now: string }>('GET', '/clock')).now,
    );
    const moved = await server.mailtwin.advanceClock(3_600_000);
    expect(Date.parse(moved.now) - before).toBeGreaterThanOrEqual(3_600_000);
    const t = await server.mailtwin.createTenant();
    await server.mailtwin.armChaos(
      [{ surface: 'http', operation: 'sendEmail', error: { status: 503 } }],
      1,
    );
    const refused = await t
      .send({ to: 'x@example.com', subject: 'S', text: 'T' })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 503 });
    expect((await server.mailtwin.listChaos()).rules[0]?.fired).toBe(1);
    await server.mailtwin.clearChaos();
    await expect(t.send({ to: 'x@example.com', subject: 'S', text: 'T' })).resolves.toBeDefined();
    await t.delete();
  });
});
