import { describe, expect, it } from 'vitest';
import { LOOKUP_COST_IN_MATCHES, searchPlan, SORT_BELOW, WALK_ROWS } from './search.ts';

/** A sample of the newest matches: `found` of them among the newest `span` emails. */
const sample = (found: number, span: number, newestRowid = 100_000) => ({
  found,
  oldestSampled: newestRowid - span + 1,
  newestRowid,
});

describe('searchPlan', () => {
  it('sorts when fewer than SORT_BELOW emails match', () => {
    expect(searchPlan({ found: 0, oldestSampled: 0, newestRowid: 0 }, 26)).toBe('sort');
    expect(searchPlan(sample(SORT_BELOW - 1, 100_000), 26)).toBe('sort');
  });

  it('walks when the newest matches are dense enough to fill the page within 3/4 of a walk', () => {
    // Every email matches: 26 lookups.
    expect(searchPlan(sample(SORT_BELOW, SORT_BELOW), 26)).toBe('walk');
    const rows = 26;
    const sparsest = rows / ((WALK_ROWS * 3) / 4);
    const span = Math.floor(SORT_BELOW / sparsest);
    expect(searchPlan(sample(SORT_BELOW, span), rows)).toBe('walk');
    expect(searchPlan(sample(SORT_BELOW, span + 10), rows)).toBe('filter');
  });

  it('filters for sparser matches and for pages too long to walk', () => {
    expect(searchPlan(sample(SORT_BELOW, 100_000), 26)).toBe('filter');
    expect(searchPlan(sample(SORT_BELOW, SORT_BELOW), 101)).toBe('filter');
  });

  it('filters when the index holds fewer matches than the lookups of a walk are worth', () => {
    // Every email matches, 26 lookups: worth 26 × LOOKUP_COST_IN_MATCHES matches read.
    const worth = 26 * LOOKUP_COST_IN_MATCHES;
    expect(searchPlan(sample(SORT_BELOW, SORT_BELOW, worth), 26)).toBe('walk');
    expect(searchPlan(sample(SORT_BELOW, SORT_BELOW, worth - 1), 26)).toBe('filter');
    // A third of 10,000 emails match: 78 lookups, against about 3,300 matches to read.
    expect(searchPlan(sample(SORT_BELOW, 1_500, 10_000), 26)).toBe('filter');
    expect(searchPlan(sample(SORT_BELOW, 1_500, 100_000), 26)).toBe('walk');
  });
});
