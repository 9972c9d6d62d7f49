import { describe, expect, it } from 'vitest';
import { ChargedFailure, chargeTo, chargedRule, expectAt, recordingDecided } from './charge.ts';

async function failureOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('expectAt', () => {
  it('passes silently when the assertion holds, through .not chains too', async () => {
    expectAt('4.4-R2', 1).toBe(1);
    expectAt('4.4-R2', 1).not.toBe(2);
    expectAt('4.4-R2', { a: 1, b: 2 }).toMatchObject({ a: 1 });
    await expectAt('4.4-R2', Promise.resolve(3)).resolves.toBe(3);
  });

  it('charges a failing matcher to its rule, keeping the message', async () => {
    const error = await failureOf(() => expectAt('4.4-R2', false, 'read flag').toBe(true));
    expect(error).toBeInstanceOf(ChargedFailure);
    expect(chargedRule(error)).toBe('4.4-R2');
    expect((error as Error).message).toMatch(/read flag/);
  });

  it('charges failures of .not, .resolves and .rejects chains', async () => {
    expect(chargedRule(await failureOf(() => expectAt('D-5', 1).not.toBe(1)))).toBe('D-5');
    expect(
      chargedRule(await failureOf(() => expectAt('D-5', Promise.resolve(1)).resolves.toBe(2))),
    ).toBe('D-5');
    expect(
      chargedRule(await failureOf(() => expectAt('D-5', Promise.resolve(1)).rejects.toThrow())),
    ).toBe('D-5');
  });
});

describe('chargeTo', () => {
  it('charges whatever the block throws, and the innermost charge wins', async () => {
    expect(
      chargedRule(
        await failureOf(() =>
          chargeTo('4.3-R1', () => {
            throw new Error('boom');
          }),
        ),
      ),
    ).toBe('4.3-R1');
    const nested = await failureOf(() =>
      chargeTo('4.3-R1', () => expectAt('D-22', 'Invoice').toBe('Re: Invoice')),
    );
    expect(chargedRule(nested)).toBe('D-22');
  });

  it('returns the block’s value', async () => {
    expect(await chargeTo('4.3-R1', async () => 7)).toBe(7);
  });
});

describe('recordingDecided', () => {
  it('records a failed decided assertion and goes on to the documented ones behind it', async () => {
    const reached: string[] = [];
    const { outcome, decided } = await recordingDecided(async () => {
      expectAt('D-21', 200, 'send status').toBe(201);
      reached.push('after the decided assertion');
      expectAt('4.4-R2', true).toBe(true);
      reached.push('after the documented assertion');
      return 'done';
    });
    expect(outcome).toEqual({ status: 'fulfilled', value: 'done' });
    expect(reached).toEqual(['after the decided assertion', 'after the documented assertion']);
    expect(decided.map((d) => d.ruleId)).toEqual(['D-21']);
  });

  it('still throws a failed documented assertion', async () => {
    const { outcome, decided } = await recordingDecided(async () => {
      expectAt('D-3', 'x').toBe('y');
      expectAt('4.4-R2', false).toBe(true);
    });
    expect(outcome.status).toBe('rejected');
    expect(chargedRule((outcome as PromiseRejectedResult).reason)).toBe('4.4-R2');
    expect(decided.map((d) => d.ruleId)).toEqual(['D-3']);
  });

  it('keeps the departures of blocks running side by side apart, each in its own record', async () => {
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const [first, second] = await Promise.all([
      recordingDecided(async () => {
        await turn();
        expectAt('D-21', 200).toBe(201);
        await turn();
      }),
      recordingDecided(async () => {
        await turn();
        await turn();
        expectAt('D-3', 'x').toBe('y');
      }),
    ]);
    expect(first.decided.map((d) => d.ruleId)).toEqual(['D-21']);
    expect(second.decided.map((d) => d.ruleId)).toEqual(['D-3']);
  });

  it('throws decided failures as before outside a recording check', () => {
    expect(() => expectAt('D-21', 200).toBe(201)).toThrow(ChargedFailure);
  });
});
