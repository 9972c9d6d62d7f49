import { describe, expect, it } from 'vitest';
import { ContractViolation } from '../client/answer-errors.ts';
import { ApiClient, type ApiResponse } from '../client/client.ts';
import type { SpecValidator } from '../contract/spec-validator.ts';
import type { Target } from '../client/target.ts';
import { MailWatch, type ListedEmail } from './mail-watch.ts';
import { claimTag, tagged } from './claims.ts';

/** A mailbox the fake target lists: what it holds now, and how many listings were asked. */
function fakeTarget(initial: ListedEmail[]) {
  const held = [...initial];
  let listings = 0;
  const api = {
    onWriteAnswered: () => {},
    request: async ({ path }: { path: string }) => {
      if (path !== '/emails') throw new Error(`unexpected request ${path}`);
      listings += 1;
      return response(200, { emails: held });
    },
  } as unknown as ApiClient;
  return { api, held, listings: () => listings };
}

function response(status: number, body: unknown): ApiResponse {
  const text = JSON.stringify(body);
  return {
    status,
    headers: new Headers({ 'content-type': 'application/json' }),
    bytes: new TextEncoder().encode(text),
    text,
    json: <T>() => JSON.parse(text) as T,
  } as ApiResponse;
}

const email = (id: string, receivedAt: string, from = 'someone@example.com'): ListedEmail => ({
  id,
  mailbox: 'hello@acme.test',
  folder: 'inbox',
  receivedAt,
  from: { address: from, name: null },
  subject: 'Hi',
});

/** A send's answer: its sent copy, addressed to the watched mailbox. */
const sentTo = (id: string) =>
  response(201, { id, to: [{ address: 'hello@acme.test', name: null }], cc: [], bcc: [] });

describe('MailWatch (API world)', () => {
  it('awaits one copy per email made, so an identical request answered with the same email awaits none more', async () => {
    const target = fakeTarget([email('old', '2026-01-01T00:00:00Z')]);
    // Long enough that waiting it out would time the test out: the watch must not wait for it.
    const watch = new MailWatch(target.api, 'sk-test', ['hello@acme.test'], 600_000);
    await watch.start();
    watch.recordWrite(sentTo('sent-1'));
    watch.recordWrite(sentTo('sent-1')); // a deduplicating target answers the same email again
    target.held.push(email('copy-1', '2026-01-02T00:00:00Z', 'hello@acme.test'));
    const listingsBefore = target.listings();
    const fresh = await watch.newEmails('hello@acme.test');
    expect(fresh.map((e) => e.id)).toEqual(['copy-1']);
    // One round of listings to see the copy arrive, and one to answer: no polling.
    expect(target.listings() - listingsBefore).toBeLessThanOrEqual(12);
  });

  it('keeps waiting for a second copy when the answers name two emails', async () => {
    const target = fakeTarget([]);
    const watch = new MailWatch(target.api, 'sk-test', ['hello@acme.test'], 600_000);
    await watch.start();
    watch.recordWrite(sentTo('sent-1'));
    watch.recordWrite(sentTo('sent-2'));
    target.held.push(email('copy-1', '2026-01-02T00:00:00Z'));
    let settled = false;
    const reading = watch.newEmails('hello@acme.test').then((emails) => {
      settled = true;
      return emails;
    });
    // The watch polls while one copy is missing; the second arrives, and it answers with both.
    while (target.listings() < 20) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    target.held.push(email('copy-2', '2026-01-02T00:00:01Z'));
    expect((await reading).map((e) => e.id).sort()).toEqual(['copy-1', 'copy-2']);
  });

  it('awaits no copy for a check that awaits its own: its clean-up never waits for one it deleted first', async () => {
    const target = fakeTarget([]);
    // Long enough that waiting it out would time the test out: the clean-up must not wait.
    const watch = new MailWatch(target.api, 'sk-test', ['hello@acme.test'], 600_000, false);
    await watch.start();
    watch.recordWrite(sentTo('sent-1'));
    target.held.push(email('sent-1', '2026-01-02T00:00:00Z', 'hello@acme.test'));
    // Its copy arrived and the check deleted it before this watch listed it: never listed here.
    const deleted: string[] = [];
    (target.api as unknown as { request: unknown }).request = async ({
      method,
      path,
    }: {
      method?: string;
      path: string;
    }) => {
      if (method === 'DELETE') deleted.push(path);
      return response(method === 'DELETE' ? 204 : 200, { emails: target.held });
    };
    await watch.removeAll();
    expect(deleted).toEqual(['/emails/sent-1']);
  });
});

describe('MailWatch of checks run side by side (tagged)', () => {
  const withSubject = (id: string, receivedAt: string, subject: string): ListedEmail => ({
    ...email(id, receivedAt, 'hello@acme.test'),
    subject,
  });

  it("sees its own and untagged mail, never another check's, awaits only its own copy, and deletes only what it sees", async () => {
    const target = fakeTarget([email('old', '2026-01-01T00:00:00Z')]);
    const [a, b] = [claimTag(), claimTag()];
    const watchA = new MailWatch(target.api, 'sk-test', ['hello@acme.test'], 600_000, true, a);
    const watchB = new MailWatch(target.api, 'sk-test', ['hello@acme.test'], 600_000, true, b);
    await watchA.start();
    await watchB.start();
    watchA.recordWrite(sentTo('sent-a'));
    watchB.recordWrite(sentTo('sent-b'));
    // B's copy and a stray email no check tagged arrive first; A's copy only after a listing.
    target.held.push(withSubject('copy-b', '2026-01-02T00:00:00Z', tagged('Hello', b)));
    target.held.push(withSubject('stray', '2026-01-02T00:00:01Z', 'Hello'));
    const request = target.api.request.bind(target.api);
    let listed = 0;
    (target.api as unknown as { request: unknown }).request = async (asked: { path: string }) => {
      if (++listed === 3)
        target.held.push(withSubject('copy-a', '2026-01-02T00:00:02Z', tagged('Re: Hello', a)));
      return request(asked as never);
    };
    expect((await watchA.newEmails('hello@acme.test')).map((e) => e.id).sort()).toEqual([
      'copy-a',
      'stray',
    ]);
    expect((await watchB.newEmails('hello@acme.test')).map((e) => e.id).sort()).toEqual([
      'copy-b',
      'stray',
    ]);
    const deleted: string[] = [];
    (target.api as unknown as { request: unknown }).request = async ({
      method,
      path,
    }: {
      method?: string;
      path: string;
    }) => {
      if (method === 'DELETE') deleted.push(path);
      return response(method === 'DELETE' ? 204 : 200, { emails: target.held });
    };
    await watchA.removeAll();
    expect(deleted.sort()).toEqual(['/emails/copy-a', '/emails/stray']);
  });
});

describe('MailWatch with a real client', () => {
  it('accounts for mail a send made even when its answer breaks the contract and the request throws', async () => {
    const target = {
      kind: 'live',
      baseUrl: 'https://mail.example.com/openapi/v1',
      origin: 'https://mail.example.com',
      apiKey: 'sk-test',
      control: undefined,
      offers: new Set(),
      deliveryTimeoutMs: 60_000,
      fetch: async (request: Request) =>
        new URL(request.url).pathname.endsWith('/emails/send')
          ? Response.json({ id: 'sent-1', to: [{ address: 'hello@acme.test' }] }, { status: 200 })
          : Response.json({ emails: [] }),
    } as unknown as Target;
    // A target answering 200 where the contract says 201 (a decided status, D-21).
    const validator = {
      judge: ({ path, status }: { path: string; status: number }) =>
        path === '/emails/send' && status === 200
          ? { violations: ['status 200'], charge: { ruleId: 'D-21', layer: 'decided' } }
          : { violations: [] },
    } as unknown as SpecValidator;
    const api = new ApiClient(target, validator);
    const watch = new MailWatch(api, 'sk-test', ['hello@acme.test'], 600_000);
    await watch.start();
    await expect(
      api.request({ method: 'POST', path: '/emails/send', json: { to: 'hello@acme.test' } }),
    ).rejects.toThrow(ContractViolation);
    expect(watch.isCreated('sent-1')).toBe(true);
  });
});
