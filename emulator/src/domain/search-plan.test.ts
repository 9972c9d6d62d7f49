import { describe, expect, it } from 'vitest';
import {
  RANGE_COST,
  MATCH_READ_COST,
  RANGE_MARGIN,
  rangeRows,
  readsNewest,
  searchPlan,
  SORT_BELOW,
  SORT_COST,
} from './search.ts';

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

  it('reads the mailbox through the newest matches when matches are many', () => {
    // Every email matches.
    expect(searchPlan(sample(SORT_BELOW, SORT_BELOW), 26)).toBe('range');
    // matches² just above RANGE_COST × rows × emails, then just below.
    const emails = 100_000;
    const even = Math.sqrt(RANGE_COST * 26 * emails) / emails;
    expect(searchPlan(sample(SORT_BELOW, Math.floor(SORT_BELOW / even / 1.01)), 26)).toBe('range');
    expect(searchPlan(sample(SORT_BELOW, Math.ceil(SORT_BELOW / even / 0.99)), 26)).toBe('filter');
  });

  it('reads the mailbox through every match when matches are neither few nor many', () => {
    // One email in a hundred of 100,000: 1,000 matches.
    expect(searchPlan(sample(SORT_BELOW, SORT_BELOW * 100), 26)).toBe('filter');
    // The same density over 10,000 emails, for a page of 101 rows.
    expect(searchPlan(sample(SORT_BELOW, SORT_BELOW * 10, 10_000), 101)).toBe('filter');
  });
});

describe('searchPlan with other filters', () => {
  // One email in a hundred of 100,000: 1,000 matches.
  const sampled = sample(SORT_BELOW, SORT_BELOW * 100);

  it('sorts the matches when so few emails pass the other filters that the walk is long', () => {
    // The walk for 26 rows: 26 / (0.01 × passing) emails, at most the 100,000.
    expect(searchPlan(sampled, 26, { within: 1, passing: 1 })).toBe('filter');
    expect(searchPlan(sampled, 26, { within: 1, passing: 0.01 })).toBe('sort');
    // Just below and above matches × SORT_COST = walked.
    const even = 26 / (0.01 * 1000 * SORT_COST);
    expect(searchPlan(sampled, 26, { within: 1, passing: even / 1.01 })).toBe('sort');
    expect(searchPlan(sampled, 26, { within: 1, passing: even / 0.99 })).toBe('filter');
  });

  it('walks a folder through its own index: a small folder bounds the walk', () => {
    expect(searchPlan(sampled, 26, { within: 0.05, passing: 0.01 })).toBe('filter');
  });
});

describe('rangeRows', () => {
  it('expects the page among the emails that hold its rows at the sampled density, with a margin', () => {
    // Every email matches: the page's rows and the margin's.
    expect(rangeRows(sample(SORT_BELOW, SORT_BELOW), 26)).toBe(Math.ceil(26 * RANGE_MARGIN) + 26);
    // One email in ten matches: ten times as many.
    expect(rangeRows(sample(SORT_BELOW, SORT_BELOW * 10), 26)).toBe(
      Math.ceil(26 * RANGE_MARGIN * 10) + 26,
    );
  });

  it('reads the whole mailbox when the sample found no match', () => {
    expect(rangeRows({ found: 0, oldestSampled: 0, newestRowid: 0 }, 26)).toBe(2 ** 31);
  });
});

describe('readsNewest', () => {
  it('reads from the newest matches when fewer than SORT_BELOW emails match', () => {
    expect(
      readsNewest(sample(SORT_BELOW - 1, 100_000), 26, { within: 1, passing: 1, kept: 0 }),
    ).toBe(true);
  });

  it('reads from the newest matches when the page fills from a few of them', () => {
    // One email in ten matches (10,000 of 100,000) and every email is the mailbox's.
    expect(readsNewest(sample(SORT_BELOW, SORT_BELOW * 10), 26)).toBe(true);
    // One in fifty passes the other filters: 1,300 rows read against 10,000 matches read.
    expect(
      readsNewest(sample(SORT_BELOW, SORT_BELOW * 10), 26, {
        within: 1,
        passing: 0.02,
        kept: 0.02,
      }),
    ).toBe(true);
  });

  it('reads every match when that and a short walk cost less than a row for each', () => {
    // 1,000 matches, one email in a hundred passing, in a folder of 2,000 of the 100,000: the
    // page never fills, 1,000 rows read (SORT_COST each) against 1,000 matches
    // (MATCH_READ_COST each) and a walk of the folder's 2,000.
    const sampled = sample(SORT_BELOW, SORT_BELOW * 100);
    const folder = { within: 0.02, passing: 0.01 };
    expect(readsNewest(sampled, 26, { ...folder, kept: 0.0002 })).toBe(false);
    // Just above and below: rows read × SORT_COST against matches × MATCH_READ_COST + walked.
    const even = (1000 * MATCH_READ_COST + 2000) / SORT_COST;
    expect(readsNewest(sampled, 26, { ...folder, kept: 26 / (even * 0.99) })).toBe(true);
    expect(readsNewest(sampled, 26, { ...folder, kept: 26 / (even * 1.01) })).toBe(false);
  });
});
