import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../client/client.ts';
import { MailboxArrivals, type ArrivedEmail } from './arrivals.ts';

const email = (tag: string, n: number): ArrivedEmail => ({
  id: `em_${tag}_${n}`,
  folder: 'inbox',
  read: false,
  starred: false,
  subject: `${tag} hello`,
  receivedAt: new Date(Date.UTC(2026, 10, 27, 9, 0, n)).toISOString(),
});

/** A target whose mailbox lists `arriving` once it has been listed `after` times. */
function fakeTarget(arriving: ArrivedEmail[], after: number) {
  const calls: Record<string, string>[] = [];
  const api = {
    request: async ({ query }: { query: Record<string, string> }) => {
      calls.push(query);
      const emails = calls.length > after ? [...arriving].reverse() : [];
      return { status: 200, json: () => ({ emails, nextCursor: null }) };
    },
  } as unknown as ApiClient;
  return { api, calls };
}

describe('MailboxArrivals', () => {
  it('answers ten sequences awaiting mail with one listing of the mailbox, each its own tagged copy', async () => {
    const tags = Array.from({ length: 10 }, (_, i) => `mt${i}`);
    const { api, calls } = fakeTarget(
      tags.map((tag, i) => email(tag, i)),
      1,
    );
    const arrivals = new MailboxArrivals(api, 'sk-x', 'box@acme.test', 60_000);
    const found = await Promise.all(
      tags.map((tag) => arrivals.awaitEmails((e) => e.subject.startsWith(`${tag} `), 0)),
    );
    expect(found.map((list) => list.map((e) => e.id))).toEqual(
      tags.map((tag, i) => [`em_${tag}_${i}`]),
    );
    // One listing found nothing yet, the next answered all ten.
    expect(calls).toHaveLength(2);
    expect(calls[0]).toEqual({ mailbox: 'box@acme.test', limit: '100' });
  });

  it('gives up on a copy that never comes once the delivery time-out has passed, with none', async () => {
    const { api } = fakeTarget([], 0);
    const arrivals = new MailboxArrivals(api, 'sk-x', 'box@acme.test', 0);
    expect(await arrivals.awaitEmails(() => true, 0)).toEqual([]);
  });

  it('fails every wait, charged to 4.2-R13, when the target refuses the listing', async () => {
    const api = {
      request: async () => ({ status: 500, json: () => ({}) }),
    } as unknown as ApiClient;
    const arrivals = new MailboxArrivals(api, 'sk-x', 'box@acme.test', 60_000);
    const waits = [arrivals.awaitEmails(() => true, 0), arrivals.awaitEmails(() => true, 0)];
    for (const wait of waits)
      await expect(wait).rejects.toMatchObject({ name: 'ChargedFailure', ruleId: '4.2-R13' });
  });
});
