import { describe, expect, it } from 'vitest';
import { searchPlan, SORT_BELOW, WALK_ROWS } from './search.ts';

describe('searchPlan', () => {
  it('sorts when fewer than SORT_BELOW emails match', () => {
    expect(searchPlan({ found: 0, lastRowid: 0, firstRowid: 1 }, 26)).toBe('sort');
    expect(searchPlan({ found: SORT_BELOW - 1, lastRowid: 1e6, firstRowid: 1 }, 26)).toBe('sort');
  });

  it('walks when the matches are dense enough to fill the page within half a walk', () => {
    // Every email matches: 26 lookups.
    expect(searchPlan({ found: SORT_BELOW, lastRowid: SORT_BELOW, firstRowid: 1 }, 26)).toBe(
      'walk',
    );
    const rows = 26;
    const sparsest = rows / (WALK_ROWS / 2);
    const span = Math.floor(SORT_BELOW / sparsest);
    expect(searchPlan({ found: SORT_BELOW, lastRowid: span, firstRowid: 1 }, rows)).toBe('walk');
    expect(searchPlan({ found: SORT_BELOW, lastRowid: span + 10, firstRowid: 1 }, rows)).toBe(
      'filter',
    );
  });

  it('filters for sparser matches and for pages too long to walk', () => {
    expect(searchPlan({ found: SORT_BELOW, lastRowid: 100_000, firstRowid: 1 }, 26)).toBe('filter');
    expect(searchPlan({ found: SORT_BELOW, lastRowid: SORT_BELOW, firstRowid: 1 }, 101)).toBe(
      'filter',
    );
  });
});
