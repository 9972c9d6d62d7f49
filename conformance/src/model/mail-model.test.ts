import { describe, expect, it } from 'vitest';
import {
  expectedListing,
  fold,
  matchesQ,
  ruleForDifference,
  type ModelEmail,
} from './mail-model.ts';

const base: ModelEmail = {
  id: 'b',
  mailbox: 'box@x.test',
  folder: 'inbox',
  read: false,
  starred: false,
  from: { address: 'bob@partner.test', name: 'Bob Stone' },
  to: [{ address: 'box@x.test', name: null }],
  cc: [],
  subject: 'Réunion about the invoice',
  text: 'Catalogue attached',
  receivedAt: '2026-10-01T00:00:00.000Z',
};

describe('the listing model', () => {
  it('folds case and accents', () => {
    expect(fold('RÉUNION')).toBe('reunion');
  });

  it('matches whole words unless a trailing * asks for a prefix (D-13)', () => {
    expect(matchesQ(base, 'reunion')).toBe(true);
    expect(matchesQ(base, 'cat')).toBe(false);
    expect(matchesQ(base, 'cat*')).toBe(true);
    expect(matchesQ(base, 'partner invoice')).toBe(true);
    expect(matchesQ(base, 'partner missing')).toBe(false);
  });

  it('orders newest first, ties by id descending (D-17)', () => {
    const a = { ...base, id: 'a' };
    const c = { ...base, id: 'c', receivedAt: '2026-09-01T00:00:00.000Z' };
    expect(expectedListing([a, c, base], 'box@x.test', {}).map((e) => e.id)).toEqual([
      'b',
      'a',
      'c',
    ]);
  });

  it('bounds receivedAt with dateFrom inclusive and dateTo exclusive (D-18)', () => {
    expect(expectedListing([base], 'box@x.test', { dateFrom: '2026-10-01' })).toHaveLength(1);
    expect(expectedListing([base], 'box@x.test', { dateTo: '2026-10-01T00:00:00Z' })).toHaveLength(
      0,
    );
  });

  it('charges a listing that differs from the model to the filter that explains it', () => {
    // Listed though its folder differs: the documented folder filter was ignored.
    expect(ruleForDifference(base, { folder: 'trash', q: 'reunion' }, true)).toBe('4.2-R2');
    // Listed though only q leaves it out: another meaning of q (D-13) may list it.
    expect(ruleForDifference(base, { folder: 'inbox', q: 'cat' }, true)).toBe('D-13');
    // Left out though selected: a decided filter may leave it out, else the documented one.
    expect(ruleForDifference(base, { read: false, from: 'stone' }, false)).toBe('D-14');
    expect(ruleForDifference(base, { starred: false }, false)).toBe('4.2-R7');
    expect(ruleForDifference(base, {}, false)).toBe('4.2-R13');
  });
});
