// Chaos rules on webhook deliveries (issue 30 item 3): failed and timed-out attempts as the seed
// decides, recorded and retried like any failure (D-34), latency through the injected sleep.
import { describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import { ControllableClock } from '../clock.ts';
import { ruleSeed, seededRandom } from './random.ts';
import type { ChaosRuleSetInput } from './rules.ts';

const publicResolver = async () => [{ address: '93.184.216.34', family: 4 as const }];

/** An emulator with a mailbox, a webhook on it, a receiver that counts, and chaos armed. */
function world(rules: ChaosRuleSetInput) {
  const clock = new ControllableClock(() => Date.parse('2026-11-20T09:00:00.000Z'));
  const slept: number[] = [];
  let received = 0;
  const deps = defaultDeps({
    clock,
    resolver: publicResolver,
    connector: async () => {
      received += 1;
      return { status: 204 };
    },
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
  const { webhook } = services.webhooks.create({
    ownerId: owner.id,
    url: 'https://hooks.example.com/in',
    scope: 'follow-owner',
  });
  services.chaos.arm(rules);
  /** Mail arrives n times, one after another; the first attempt of each delivery, in order. */
  const deliverMail = async (n: number) => {
    for (let i = 0; i < n; i += 1) {
      services.inbound.injectJson({ mailbox: 'hello@acme.test', from: 'bob@partner.test' });
      await services.dispatcher.runDue();
    }
    return services.webhooks
      .deliveries(webhook.id)
      .reverse()
      .map((d) => d.attemptLog[0]!);
  };
  return { services, webhook, slept, deliverMail, received: () => received };
}

function expectedFirings(seed: number, probability: number, n: number): boolean[] {
  const random = seededRandom(ruleSeed(seed, 0));
  return Array.from({ length: n }, () => random() < probability);
}

const flakyReceiver = (seed: number): ChaosRuleSetInput => ({
  seed,
  rules: [
    {
      surface: 'webhook',
      probability: 0.3,
      delivery: { outcome: 'failed', status: 503 },
    },
  ],
});

describe('chaos rules on webhook deliveries', () => {
  it('fails attempts as often as the seed decides, without reaching the receiver, and replays', async () => {
    const { deliverMail, received, services } = world(flakyReceiver(11));
    const attempts = await deliverMail(20);
    expect(attempts).toHaveLength(20);
    const codes = attempts.map((a) => a.statusCode);
    expect(codes).toEqual(expectedFirings(11, 0.3, 20).map((fires) => (fires ? 503 : 204)));
    const failed = codes.filter((c) => c === 503).length;
    expect(failed).toBeGreaterThan(1);
    expect(failed).toBeLessThan(15);
    expect(received(), 'a failed attempt never reaches the receiver').toBe(20 - failed);
    for (const attempt of attempts.filter((a) => a.statusCode === 503))
      expect(attempt.error).toMatch(/^answered 503 \(chaos rule chr_/);
    expect(services.chaos.list().rules[0]).toMatchObject({ matched: 20, fired: failed });

    const again = world(flakyReceiver(11));
    expect((await again.deliverMail(20)).map((a) => a.statusCode)).toEqual(codes);
  });

  it('records a failed attempt as any failure: the delivery is retried on the D-34 schedule', async () => {
    const { services, webhook, deliverMail } = world({
      seed: 2,
      rules: [{ surface: 'webhook', event: 'email.received', delivery: { outcome: 'failed' } }],
    });
    const [attempt] = await deliverMail(1);
    expect(attempt).toMatchObject({ statusCode: null });
    expect(attempt?.error).toMatch(/^connection refused \(chaos rule chr_/);
    expect(services.webhooks.deliveries(webhook.id)[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
    });
    // The test delivery is another event: not matched.
    expect((await services.dispatcher.sendTest(webhook)).ok).toBe(true);
  });

  it('times attempts out after the latency, counted in the attempt', async () => {
    const { deliverMail, slept, received } = world({
      seed: 2,
      rules: [{ surface: 'webhook', latencyMs: 10_000, delivery: { outcome: 'timeout' } }],
    });
    const [attempt] = await deliverMail(1);
    expect(slept).toEqual([10_000]);
    expect(attempt?.error).toMatch(/^timed out after 10000 ms \(chaos rule chr_/);
    expect(attempt?.latencyMs).toBeGreaterThanOrEqual(10_000);
    expect(received()).toBe(0);
  });

  it('adds latency alone and lets the attempt reach the receiver; another webhook is not matched', async () => {
    const { deliverMail, slept, received, webhook } = world({
      seed: 2,
      rules: [
        { surface: 'webhook', webhookId: 'wh_other', delivery: { outcome: 'failed' } },
        { surface: 'webhook', latencyMs: 700 },
      ],
    });
    const [attempt] = await deliverMail(1);
    expect(webhook.id).not.toBe('wh_other');
    expect(attempt).toMatchObject({ statusCode: 204, error: null });
    expect(attempt?.latencyMs).toBeGreaterThanOrEqual(700);
    expect(slept).toEqual([700]);
    expect(received()).toBe(1);
  });
});
