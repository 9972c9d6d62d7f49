import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chargeTo } from '../contract/charge.ts';
import { checkProperty } from './property.ts';

/** One turn of the event loop: a case that awaits it lets every other started case run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('checkProperty with concurrency: cases side by side, verdicts as one at a time', () => {
  const saved = fc.readConfigureGlobal();
  beforeEach(() => fc.configureGlobal({ seed: 42, numRuns: 20 }));
  afterEach(() => fc.configureGlobal(saved));

  // Each case counts the request it would send: a property that sends nothing checks nothing.
  let counted = { requests: 0, cases: 0 };
  const counts = () => (counted = { requests: 0, cases: 0 });
  const sent = () => void (counted.requests += 1);
  const arbitrary = fc.tuple(fc.nat({ max: 1000 }), fc.string());

  it('runs that many cases at once, and each case fast-check would run, once', async () => {
    let running = 0;
    let most = 0;
    const tried: unknown[] = [];
    await checkProperty(
      [],
      counts(),
      arbitrary,
      async (value) => {
        tried.push(value);
        sent();
        most = Math.max(most, ++running);
        await turn();
        running -= 1;
      },
      { concurrency: 5 },
    );
    expect(most).toBe(5);
    const inTurn: unknown[] = [];
    await checkProperty([], counts(), arbitrary, async (value) => {
      sent();
      inTurn.push(value);
    });
    expect(tried).toHaveLength(20);
    expect(new Set(tried.map((v) => JSON.stringify(v)))).toEqual(
      new Set(inTurn.map((v) => JSON.stringify(v))),
    );
  });

  it('runs one case at a time under MAILTWIN_CONFORMANCE_CONCURRENCY=1, whatever the check asks', async () => {
    const before = process.env.MAILTWIN_CONFORMANCE_CONCURRENCY;
    process.env.MAILTWIN_CONFORMANCE_CONCURRENCY = '1';
    try {
      let running = 0;
      let most = 0;
      await checkProperty(
        [],
        counts(),
        arbitrary,
        async () => {
          sent();
          most = Math.max(most, ++running);
          await turn();
          running -= 1;
        },
        { concurrency: 5 },
      );
      expect(most).toBe(1);
    } finally {
      if (before === undefined) delete process.env.MAILTWIN_CONFORMANCE_CONCURRENCY;
      else process.env.MAILTWIN_CONFORMANCE_CONCURRENCY = before;
    }
  });

  it('reports the failure one at a time would report: the same seed, path and counterexample', async () => {
    // Only the 13th case fails (nothing smaller does), so the report names its path, 12.
    const thirteenth = JSON.stringify(fc.sample(arbitrary, { seed: 42, numRuns: 20 })[12]);
    const fails = async (value: [number, string]) => {
      sent();
      await turn();
      await chargeTo('4.2-R1', () => expect(JSON.stringify(value)).not.toBe(thirteenth));
    };
    const message = async (concurrency?: number) => {
      const error = await checkProperty([], counts(), arbitrary, fails, {
        ...(concurrency === undefined ? {} : { concurrency }),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      return (error as Error).message.split('\n').slice(0, 3).join('\n');
    };
    const alone = await message();
    expect(alone).toContain('Property failed after 13 tests\n{ seed: 42, path: "12"');
    expect(await message(7)).toBe(alone);
  });

  it('gives the verdict of one at a time when a case fails only beside others', async () => {
    let running = 0;
    const crowded: unknown[] = [];
    await checkProperty(
      [],
      counts(),
      arbitrary,
      async () => {
        running += 1;
        sent();
        await turn();
        const company = running;
        running -= 1;
        if (company > 1) crowded.push(company);
        expect(company, 'fails only when not alone').toBe(1);
      },
      { concurrency: 3 },
    );
    expect(crowded.length).toBeGreaterThan(0);
  });
});
