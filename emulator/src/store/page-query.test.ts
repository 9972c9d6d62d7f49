/**
 * The page query's statements keep their plan: SQLite prepares a statement again on the next
 * run whenever a parameter its planner read is bound anew, and better-sqlite3 binds every
 * parameter on every run. A bare parameter in a LIMIT is such a parameter, so each page was
 * parsed and planned again on every request (issue 31 item 1's profile: sqlite3Reprepare under
 * every list). Every LIMIT of every plan takes its parameter as an expression instead.
 */
import type Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import type { SearchPlan } from '../domain/search.ts';
import type { EmailFilter } from '../domain/types.ts';
import { pageQuery } from './page-query.ts';
import type { Statements } from './statements.ts';
import { openStore } from './store.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';

/** Records every SQL text the page query runs; each answers no rows and a dense sample. */
function recording(): { sql: Statements; texts: string[] } {
  const texts: string[] = [];
  const statement = {
    raw: () => statement,
    pluck: () => statement,
    all: () => [],
    get: () => ({ found: 400, oldestSampled: 1, newestRowid: 400 }),
  };
  const sql = {
    get: (text: string) => {
      texts.push(text);
      return statement as unknown as Database.Statement;
    },
  } as unknown as Statements;
  return { sql, texts };
}

const EVERY_FILTER: EmailFilter = {
  mailbox: 'box@acme.test',
  folder: 'inbox',
  read: true,
  starred: false,
  fromContains: 'a',
  subjectContains: 'b',
  receivedFrom: '2026-01-01T00:00:00.000Z',
  receivedBefore: '2026-02-01T00:00:00.000Z',
};

describe('page query statements', () => {
  const cases: [string, EmailFilter, SearchPlan | undefined][] = [
    ['a plain page', { mailbox: 'box@acme.test' }, undefined],
    ['a page with every filter', EVERY_FILTER, undefined],
    ...(['newest', 'sort', 'range', 'filter'] as const).map(
      (plan): [string, EmailFilter, SearchPlan] => [
        `a search by the ${plan} plan`,
        { ...EVERY_FILTER, match: '"kalo"' },
        plan,
      ],
    ),
    [
      'a search whose plan the sample picks',
      { mailbox: 'box@acme.test', match: '"kalo"' },
      undefined,
    ],
  ];
  it.each(cases)('binds no LIMIT as a bare parameter in %s', (_name, filter, plan) => {
    const { sql, texts } = recording();
    const after = { receivedAt: '2026-01-15T00:00:00.000Z', id: 'em_1' };
    pageQuery(sql, plan ? { plan } : {}, 'e.id', filter, 25, after).run(true);
    // Every statement that reads rows (the newest rowid, read for the kept sample, has none).
    const reads = texts.filter(
      (text) => !text.startsWith('SELECT coalesce(max(seq), 0) FROM emails'),
    );
    expect(reads.length).toBeGreaterThan(0);
    for (const text of reads) {
      const limits = text.match(/LIMIT\s+[^\s)]+(\s+\+\s+0)?/g) ?? [];
      expect(limits.length, text).toBeGreaterThan(0);
      for (const limit of limits) expect(limit, text).toMatch(/^LIMIT @\w+ \+ 0$/);
    }
  });

  it("bounds the range plan's read of the full-text index by an integer rowid", () => {
    const { sql, texts } = recording();
    pageQuery(
      sql,
      { plan: 'range', rangeRows: 40 },
      'e.id',
      { ...EVERY_FILTER, match: '"kalo"' },
      25,
    ).run(true);
    const reads = texts.filter((text) => text.includes('emails_fts MATCH'));
    expect(reads.length).toBeGreaterThan(0);
    // FTS5 narrows its read to a rowid bound only when the bound is an integer
    // (fts-rowid-bound.test.ts); a JavaScript number is bound as a real.
    for (const text of reads)
      expect(text, text).toMatch(/rowid >= CAST\(@\w+ AS INTEGER\)|emails_fts MATCH @match\)/);
    expect(reads.some((text) => text.includes('rowid >= CAST(@from AS INTEGER)'))).toBe(true);
  });

  it('samples the matches of a search once until new mail is stored', () => {
    // The plans read from the database (a first page would otherwise be chosen in memory).
    const SQL_ONLY = { memory: false };
    let newestRowid = 400;
    const texts: string[] = [];
    const statement = (text: string) => {
      const s = {
        raw: () => s,
        pluck: () => s,
        all: () => [],
        get: () =>
          text.includes('AS found')
            ? { found: 400, oldestSampled: 1, newestRowid }
            : text.includes('AS probed')
              ? { probed: 200, held: 200, passing: 100 }
              : text.includes('max(seq)')
                ? newestRowid
                : undefined,
      };
      return s;
    };
    const sql = {
      get: (text: string) => {
        texts.push(text);
        return statement(text) as unknown as Database.Statement;
      },
    } as unknown as Statements;
    const samples = () => texts.filter((text) => text.includes('AS found')).length;
    const search = { mailbox: 'box@acme.test', match: '"kalo"' };
    pageQuery(sql, SQL_ONLY, 'e.id', search, 25).run(true);
    // The next page, another page size, another filter: the same words.
    pageQuery(sql, SQL_ONLY, 'e.id', search, 10, {
      receivedAt: '2026-01-15T00:00:00.000Z',
      id: 'em_1',
    }).run(true);
    pageQuery(sql, SQL_ONLY, 'e.id', { ...search, folder: 'inbox' }, 25).run(true);
    expect(samples()).toBe(1);
    newestRowid = 401; // new mail
    pageQuery(sql, SQL_ONLY, 'e.id', search, 25).run(true);
    expect(samples()).toBe(2);
    pageQuery(sql, SQL_ONLY, 'e.id', { ...search, match: '"lopa"' }, 25).run(true);
    expect(samples()).toBe(3);
    // With other filters, the share passing them is probed once too, and the newest rowid
    // read once a page (the sample's read says whether both are current).
    const probes = () => texts.filter((text) => text.includes('AS probed')).length;
    const newest = () => texts.filter((text) => text.includes('max(seq)')).length;
    const [probed, read] = [probes(), newest()];
    const filtered = { ...search, read: false, starred: true };
    pageQuery(sql, SQL_ONLY, 'e.id', filtered, 25).run(true);
    expect([probes() - probed, newest() - read]).toEqual([1, 1]);
    pageQuery(sql, SQL_ONLY, 'e.id', filtered, 50).run(true);
    expect([probes() - probed, newest() - read]).toEqual([1, 2]);
    newestRowid = 402;
    pageQuery(sql, SQL_ONLY, 'e.id', filtered, 25).run(true);
    expect(probes() - probed).toBe(2);
  });

  it('reads the newest plan from the full-text index newest first, each email by its rowid, unsorted', () => {
    const { sql, texts } = recording();
    pageQuery(sql, { plan: 'newest' }, 'e.id', { ...EVERY_FILTER, match: '"kalo"' }, 25).run(true);
    const newest = texts.find((text) => text.includes('CROSS JOIN'));
    expect(newest).toBeDefined();
    const store = openStore();
    const plan = (
      store.db.prepare(`EXPLAIN QUERY PLAN ${newest}`).all({
        ...EVERY_FILTER,
        read: 1,
        starred: 0,
        match: '"kalo"',
        limit: 26,
      }) as { detail: string }[]
    ).map((row) => row.detail);
    store.close();
    // The index's rowid order is the page's: no sort of the matches, read up to the LIMIT.
    expect(plan[0]).toMatch(/^SCAN f VIRTUAL TABLE INDEX/);
    expect(plan[1]).toMatch(/^SEARCH e USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
  });

  it('reads the rows of a page chosen in memory by their rowids, newest first, unsorted', () => {
    const store = openStore();
    store.directory.createMailbox({
      address: 'box@acme.test',
      domain: 'acme.test',
      displayName: null,
    });
    for (let n = 0; n < 3; n += 1)
      store.emails.insert(
        storedEmail({
          id: `em_${n}`,
          mailbox: 'box@acme.test',
          from: { address: 'a@partner.test', name: null },
          to: [],
          subject: 'kalo',
          messageId: `<${n}@acme.test>`,
          receivedAt: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
        }),
      );
    const texts: string[] = [];
    const prepare = store.db.prepare.bind(store.db);
    vi.spyOn(store.db, 'prepare').mockImplementation((text: string) => {
      texts.push(text);
      return prepare(text);
    });
    const page = store.emails.list(
      { mailbox: 'box@acme.test', match: '"kalo"', starred: false },
      2,
    );
    expect(page.emails.map((e) => e.id)).toEqual(['em_2', 'em_1']);
    const rows = texts.find((text) => text.includes('json_each'));
    expect(rows).toBeDefined();
    const plan = (
      store.db.prepare(`EXPLAIN QUERY PLAN ${rows}`).all({ seqs: '[3, 2, 1]' }) as {
        detail: string;
      }[]
    ).map((row) => row.detail);
    store.close();
    expect(plan[0]).toMatch(/^SEARCH e USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
  });
});
