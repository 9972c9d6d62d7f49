// Chaos rules on the API's operations (issue 30 item 3): seeded, deterministic, with latency on
// the injected clock, armed, listed and cleared through the control plane.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import { ControllableClock } from '../clock.ts';
import { ruleSeed, seededRandom } from './random.ts';

const TOKEN = 'mt_chaos-test';
const T0 = Date.parse('2026-11-20T09:00:00.000Z');

/** An emulator with one owner, mailbox and key; a sleep that moves the clock and counts. */
function world() {
  const clock = new ControllableClock(() => T0);
  const slept: number[] = [];
  const deps = defaultDeps({
    controlToken: TOKEN,
    clock,
    logError: () => {},
    sleep: async (ms) => {
      slept.push(ms);
      clock.advance(ms);
    },
  });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  services.directory.createMailbox({ address: 'hello@acme.test' });
  services.directory.grant(owner.id, 'hello@acme.test');
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'test',
    scope: 'follow-owner',
  });
  const app = createApp(deps, services);
  const api = (method: string, path: string, json?: unknown) =>
    app.request(`/openapi/v1${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${secret}`,
        ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  const control = async (method: string, path: string, json?: unknown) => {
    const answer = await app.request(`/_mailtwin/v1${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await answer.text();
    return { status: answer.status, body: text === '' ? null : JSON.parse(text) };
  };
  return { clock, slept, services, api, control };
}

/** What rule `index` of a set seeded with `seed` does on its next `n` matches (fires or not). */
function expectedFirings(seed: number, index: number, probability: number, n: number): boolean[] {
  const random = seededRandom(ruleSeed(seed, index));
  return Array.from({ length: n }, () => random() < probability);
}

const flakyListing = {
  seed: 42,
  rules: [
    {
      surface: 'http',
      operation: 'listMailboxes',
      probability: 0.5,
      error: { status: 503 },
    },
  ],
};

describe('chaos rules on API operations', () => {
  it('fails an operation with the rule probability, as the seed decides, and leaves others alone', async () => {
    const { api, control } = world();
    expect((await control('PUT', '/chaos', flakyListing)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) {
      const answer = await api('GET', '/mailboxes');
      statuses.push(answer.status);
      if (answer.status === 503) {
        expect(await answer.json()).toEqual({
          code: 'service_unavailable',
          message: expect.stringMatching(/^An injected failure \(chaos rule chr_/),
        });
        expect(answer.headers.get('x-mailtwin-chaos-rule')).toMatch(/^chr_/);
      }
      // Another operation is never matched, so it neither fails nor draws.
      expect((await api('GET', '/emails?mailbox=hello@acme.test')).status).toBe(200);
    }
    const expected = expectedFirings(42, 0, 0.5, 40).map((fires) => (fires ? 503 : 200));
    expect(statuses).toEqual(expected);
    const fired = statuses.filter((s) => s === 503).length;
    expect(fired).toBeGreaterThan(10);
    expect(fired).toBeLessThan(30);
    const listed = await control('GET', '/chaos');
    expect(listed.body).toMatchObject({
      seed: 42,
      rules: [{ operation: 'listMailboxes', probability: 0.5, matched: 40, fired }],
    });
  });

  it('replays: the same seed and the same requests give the same outcomes; another seed differs', async () => {
    const run = async (seed: number) => {
      const { api, control } = world();
      await control('PUT', '/chaos', { ...flakyListing, seed });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i += 1) statuses.push((await api('GET', '/mailboxes')).status);
      // Arming the same set again starts its streams again.
      await control('PUT', '/chaos', { ...flakyListing, seed });
      const again: number[] = [];
      for (let i = 0; i < 30; i += 1) again.push((await api('GET', '/mailboxes')).status);
      expect(again).toEqual(statuses);
      return statuses;
    };
    const first = await run(42);
    expect(await run(42)).toEqual(first);
    expect(await run(43)).not.toEqual(first);
  });

  it('adds latency on the injected clock, and a latency-only rule changes no answer', async () => {
    const { api, control, slept, clock } = world();
    await control('PUT', '/chaos', {
      seed: 1,
      rules: [{ surface: 'http', method: 'GET', path: '/emails/{emailId}', latencyMs: 250 }],
    });
    const before = clock.offset;
    const missing = await api('GET', '/emails/no-such-email');
    expect(missing.status, 'still the 404 it would be').toBe(404);
    expect(slept).toEqual([250]);
    expect(clock.offset - before).toBe(250);
    // GET /emails and PATCH /emails/{emailId} are other operations.
    await api('GET', '/emails?mailbox=hello@acme.test');
    await api('PATCH', '/emails/no-such-email');
    expect(slept).toEqual([250]);
  });

  it('tries rules in order: the first that fires acts, with its status and code', async () => {
    const { api, control, slept } = world();
    await control('PUT', '/chaos', {
      seed: 5,
      rules: [
        { surface: 'http', operation: 'listMailboxes', probability: 0, error: { status: 500 } },
        {
          surface: 'http',
          latencyMs: 30,
          error: { status: 429, message: 'Slow down.' },
        },
        { surface: 'http', error: { status: 418, code: 'teapot' } },
      ],
    });
    const answer = await api('GET', '/mailboxes');
    expect(answer.status).toBe(429);
    expect(await answer.json()).toEqual({ code: 'rate_limited', message: 'Slow down.' });
    expect(slept).toEqual([30]);
    const { body } = await control('GET', '/chaos');
    expect(body.rules.map((r: { matched: number; fired: number }) => [r.matched, r.fired])).toEqual(
      [
        [1, 0],
        [1, 1],
        [0, 0],
      ],
    );
  });

  it('lists and clears in one call each; reset clears too', async () => {
    const { api, control } = world();
    await control('PUT', '/chaos', {
      seed: 9,
      rules: [{ surface: 'http', error: { status: 503 } }],
    });
    expect((await api('GET', '/mailboxes')).status).toBe(503);
    expect((await control('GET', '/chaos')).body.rules).toHaveLength(1);
    expect((await control('DELETE', '/chaos')).status).toBe(204);
    expect((await control('GET', '/chaos')).body).toEqual({ seed: 9, rules: [] });
    expect((await api('GET', '/mailboxes')).status).toBe(200);
    await control('PUT', '/chaos', { rules: [{ surface: 'http', error: { status: 503 } }] });
    expect((await control('POST', '/reset')).status).toBe(204);
    expect((await control('GET', '/chaos')).body.rules).toEqual([]);
  });

  it('chooses and shows a seed when none is given, so the run can be replayed', async () => {
    const { control } = world();
    const armed = await control('PUT', '/chaos', { rules: [] });
    expect(Number.isInteger(armed.body.seed)).toBe(true);
    expect(armed.body.seed).toBeGreaterThanOrEqual(0);
    expect(armed.body.seed).toBeLessThan(2 ** 32);
  });

  it.each([
    [{ rules: [{ surface: 'http', reply: { code: 451 } }] }, 'invalid_field', 'rules[0].reply'],
    [{ rules: [{ surface: 'smtp', error: { status: 503 } }] }, 'invalid_field', 'rules[0].error'],
    [{ rules: [{ surface: 'http', operation: 'nope' }] }, 'invalid_field', 'rules[0].operation'],
    [
      { rules: [{ surface: 'http', operation: 'sendEmail', method: 'POST' }] },
      'invalid_field',
      'rules[0].method',
    ],
    [
      { rules: [{ surface: 'http', method: 'PATCH', path: '/mailboxes' }] },
      'invalid_field',
      'rules[0].method',
    ],
    [{ rules: [{ surface: 'http', probability: 1.5 }] }, 'invalid_field', 'rules[0].probability'],
    [{ rules: [{ surface: 'http', latencyMs: 60001 }] }, 'invalid_field', 'rules[0].latencyMs'],
    [
      { rules: [{ surface: 'http', error: { status: 302 } }] },
      'invalid_field',
      'rules[0].error.status',
    ],
    [
      { rules: [{ surface: 'http', error: { status: 418 } }] },
      'missing_field',
      'rules[0].error.code',
    ],
    [
      { rules: [{ surface: 'http', error: { status: 503, code: 'Not-A-Code' } }] },
      'invalid_field',
      'rules[0].error.code',
    ],
    [{ rules: [{ surface: 'smtp', stage: 'helo' }] }, 'invalid_field', 'rules[0].stage'],
    [
      { rules: [{ surface: 'smtp', reply: { code: 451, text: 'a\r\nb' } }] },
      'invalid_field',
      'rules[0].reply.text',
    ],
    [
      { rules: [{ surface: 'webhook', delivery: { outcome: 'timeout', status: 500 } }] },
      'invalid_field',
      'rules[0].delivery.status',
    ],
    [{ rules: [{ surface: 'http', when: 'now' }] }, 'unknown_field', 'rules[0].when'],
    [{ seed: -1, rules: [] }, 'invalid_field', 'seed'],
    [{}, 'missing_field', 'rules'],
  ])(
    'refuses bad rules with 400 and a stable code, and keeps the last set: %j',
    async (body, code, field) => {
      const { control } = world();
      await control('PUT', '/chaos', flakyListing);
      const answer = await control('PUT', '/chaos', body);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code, field });
      expect((await control('GET', '/chaos')).body).toMatchObject({ seed: 42, rules: [{}] });
    },
  );

  it('names every operation of the API in the control spec', async () => {
    const { services } = world();
    const ids = services.chaos.operations.map((o) => o.operationId);
    expect(ids).toHaveLength(10);
    const { control } = world();
    for (const operation of ids)
      expect(
        (await control('PUT', '/chaos', { rules: [{ surface: 'http', operation }] })).status,
      ).toBe(200);
    for (const { method, path } of services.chaos.operations)
      expect(
        (await control('PUT', '/chaos', { rules: [{ surface: 'http', method, path }] })).status,
        `${method} ${path}`,
      ).toBe(200);
  });

  it('never answers a 5xx the rules do not name: every other answer is the one it would be', async () => {
    // One request of each operation, some refused for their own reasons (400, 404).
    const requests: [string, string, unknown?][] = [
      ['GET', '/mailboxes'],
      ['GET', '/emails?mailbox=hello@acme.test'],
      ['GET', '/emails?mailbox=nobody@acme.test'],
      ['GET', '/emails/no-such-email'],
      ['PATCH', '/emails/no-such-email', { read: true }],
      ['DELETE', '/emails/no-such-email'],
      [
        'POST',
        '/emails/send',
        { from: 'hello@acme.test', to: 'x@example.com', subject: 's', text: 't' },
      ],
      ['POST', '/emails/send', {}],
      ['POST', '/emails/no-such-email/reply', { text: 'Thanks.' }],
      ['POST', '/emails/no-such-email/forward', { to: 'x@example.com' }],
      ['POST', '/attachments', {}],
      ['GET', '/attachments/no-such-attachment'],
    ];
    const answers = async (w: ReturnType<typeof world>) => {
      const out: { status: number; rule: string | null }[] = [];
      for (const [method, path, json] of requests) {
        const answer = await w.api(method, path, json);
        out.push({ status: answer.status, rule: answer.headers.get('x-mailtwin-chaos-rule') });
      }
      return out;
    };
    const baseline = await answers(world());
    expect(baseline.every((a) => a.status < 500)).toBe(true);
    const { operations } = world().services.chaos;
    const rule = fc.record(
      {
        surface: fc.constant('http'),
        operation: fc.constantFrom(...operations.map((o) => o.operationId)),
        method: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'),
        probability: fc.constantFrom(0, 0.3, 0.7, 1),
        latencyMs: fc.integer({ min: 0, max: 5000 }),
        error: fc.record({ status: fc.constantFrom(400, 404, 408, 413, 429) }),
      },
      { requiredKeys: ['surface'] },
    );
    const ruleSet = fc
      .array(rule, { maxLength: 4 })
      .map((rules) =>
        rules.map((r) => (r.operation !== undefined ? { ...r, method: undefined } : r)),
      );
    await fc.assert(
      fc.asyncProperty(ruleSet, fc.nat(), async (rules, seed) => {
        const w = world();
        const armed = await w.control('PUT', '/chaos', { seed, rules });
        expect(armed.status).toBe(200);
        const byId = new Map<string, { error?: { status: number } }>(
          armed.body.rules.map((r: { id: string }) => [r.id, r]),
        );
        const got = await answers(w);
        got.forEach((answer, i) => {
          if (answer.rule === null) expect(answer.status).toBe(baseline[i]?.status);
          else expect(answer.status).toBe(byId.get(answer.rule)?.error?.status);
          expect(answer.status).toBeLessThan(500);
        });
      }),
      { numRuns: 15, seed: 303 },
    );
  });
});
