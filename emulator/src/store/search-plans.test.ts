/**
 * The four search plans (domain/search.ts, searchPlan and readsNewest) answer every page alike:
 * same emails, same order, same end of page, over mail whose receivedAt has nothing to do with
 * the order it was stored in, with filters, cursors, deletions and moves between folders. The
 * newest and range plans answer a page themselves where mail was stored in the order it was
 * received, and give way to another plan where they cannot tell.
 */
import { describe, expect, it } from 'vitest';
import { ftsMatchExpression, type SearchPlan } from '../domain/search.ts';
import type { Email, EmailFilter, Folder, ListPosition } from '../domain/types.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';
import { openStore, type Store } from './store.ts';

const MAILBOX = 'box@acme.test';
const OTHER = 'other@acme.test';
const FOLDERS: Folder[] = ['inbox', 'archive', 'sent', 'spam', 'trash'];
const WORDS = 'kalo kalimera lopa lopez mira miro nube sol sola tierra'.split(' ');

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** 400 emails in two mailboxes, stored in an order unrelated to receivedAt (ties included). */
function corpus(): Store {
  const random = seeded(7);
  const store = openStore();
  for (const address of [MAILBOX, OTHER])
    store.directory.createMailbox({ address, domain: 'acme.test', displayName: null });
  // Skewed: `kalo` is in most emails, `tierra` in few.
  const word = () => WORDS[Math.floor(WORDS.length * random() ** 2)] as string;
  const ids: string[] = [];
  for (let n = 0; n < 400; n += 1) {
    const receivedAt = new Date(
      Date.UTC(2026, 0, 1) + Math.floor(random() * 120) * 60_000,
    ).toISOString();
    const id = `em_${Math.floor(random() * 1e9)
      .toString(36)
      .padStart(6, '0')}${n}`;
    ids.push(id);
    const email = storedEmail({
      id,
      mailbox: n % 5 === 0 ? OTHER : MAILBOX,
      folder: FOLDERS[Math.floor(random() * FOLDERS.length)] as Folder,
      read: random() < 0.5,
      starred: random() < 0.3,
      from: { address: `${word()}@partner.test`, name: null },
      to: [{ address: MAILBOX, name: null }],
      subject: `${word()} ${word()}`,
      text: Array.from({ length: 6 }, word).join(' '),
      messageId: `<m${n}@acme.test>`,
      receivedAt,
    });
    store.emails.insert(email);
  }
  // Some deleted, some moved and flagged after they were stored.
  ids.forEach((id, n) => {
    if (n % 13 === 0) store.emails.delete(id);
    else if (n % 7 === 0)
      store.emails.update(id, { folder: FOLDERS[n % FOLDERS.length], read: n % 2 === 0 });
  });
  return store;
}

const TUNINGS: Record<string, { plan?: SearchPlan; rangeRows?: number }> = {
  filter: { plan: 'filter' },
  newest: { plan: 'newest' },
  sort: { plan: 'sort' },
  'range, whole mailbox': { plan: 'range', rangeRows: 1e9 },
  'range, as sampled': { plan: 'range' },
  'range, cut short then filter': { plan: 'range', rangeRows: 5 },
  'range, one email': { plan: 'range', rangeRows: 1 },
  chosen: {},
};

/** Every page of a walk with the cursor, as list and as JSON, under one tuning. */
function walk(store: Store, filter: EmailFilter, limit: number): unknown[] {
  const pages: unknown[] = [];
  let after: ListPosition | undefined;
  for (let n = 0; n <= 400; n += 1) {
    const page = store.emails.list(filter, limit, after);
    const json = store.emails.listJson(filter, limit, after);
    pages.push(page, json.json, json.more, json.last);
    const last = page.emails.at(-1);
    if (!page.more || last === undefined) return pages;
    after = { receivedAt: last.receivedAt, id: last.id };
  }
  throw new Error('the cursor walk does not end');
}

const QUERIES = ['kalo', 'tierra', 'kalo lopa', 'sol tierra', 'kal*', 'lop*', 'mir* nube', 'zzz'];
const FILTERS: Omit<EmailFilter, 'mailbox' | 'match'>[] = [
  {},
  { folder: 'inbox' },
  { read: false },
  { starred: true, folder: 'archive' },
  { subjectContains: 'o', receivedFrom: '2026-01-01T00:30:00.000Z' },
];

describe('search plans', () => {
  const store = corpus();
  for (const q of QUERIES) {
    it(`give the same pages for "${q}" with every filter and page size`, () => {
      const match = ftsMatchExpression(q);
      for (const extra of FILTERS)
        for (const limit of [2, 7, 100]) {
          const filter: EmailFilter = { mailbox: MAILBOX, match, ...extra };
          const answers = Object.entries(TUNINGS).map(([name, tuning]) => {
            store.emails.searchTuning = tuning;
            // A write empties the page cache, so each tuning runs its own queries.
            store.settings.set('search-plans-test', name);
            return walk(store, filter, limit);
          });
          store.emails.searchTuning = {};
          for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
        }
    });
  }

  it('gives way to the filter plan when an email stored earlier is newer', () => {
    const answered: SearchPlan[] = [];
    store.emails.searchTuning = {
      plan: 'range',
      rangeRows: 1,
      answeredBy: (plan) => answered.push(plan),
    };
    store.settings.set('search-plans-test', 'fall back');
    walk(store, { mailbox: MAILBOX, match: ftsMatchExpression('kalo') }, 7);
    store.emails.searchTuning = {};
    expect(answered).toContain('filter');
  });

  it('finds emails: the comparison is not between empty pages', () => {
    const found = (q: string) =>
      store.emails.list({ mailbox: MAILBOX, match: ftsMatchExpression(q) }, 1000).emails.length;
    expect(found('kalo')).toBeGreaterThan(150);
    expect(found('sol tierra')).toBeGreaterThan(0);
    expect(found('sol tierra')).toBeLessThan(found('kalo') / 4);
  });
});

describe('the range plan over mail stored as it was received', () => {
  /** 300 emails, each received after the one stored before it, `kalo` in most of them. */
  function inOrder(): Store {
    const random = seeded(11);
    const store = openStore();
    store.directory.createMailbox({ address: MAILBOX, domain: 'acme.test', displayName: null });
    const word = () => WORDS[Math.floor(WORDS.length * random() ** 2)] as string;
    for (let n = 0; n < 300; n += 1) {
      store.emails.insert(
        storedEmail({
          id: `em_${String(n).padStart(4, '0')}`,
          mailbox: MAILBOX,
          folder: FOLDERS[n % 2] as Folder,
          from: { address: `${word()}@partner.test`, name: null },
          to: [{ address: MAILBOX, name: null }],
          subject: `${word()} ${word()}`,
          text: Array.from({ length: 6 }, word).join(' '),
          messageId: `<o${n}@acme.test>`,
          receivedAt: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
        }),
      );
    }
    return store;
  }

  it('reads the first page of a search from the newest matches, the same pages as the filter plan', () => {
    const store = inOrder();
    const answered: SearchPlan[] = [];
    store.emails.searchTuning = { answeredBy: (plan) => answered.push(plan) };
    const pages: unknown[] = [];
    for (const q of ['kalo', 'nube', 'kalo lopa', 'zzz'])
      for (const extra of [{}, { folder: 'archive' as const }])
        pages.push(walk(store, { mailbox: MAILBOX, match: ftsMatchExpression(q), ...extra }, 10));
    // A first page reads from the newest matches (as list, then as JSON); a page after a
    // cursor, by another plan.
    expect(answered.filter((plan) => plan === 'newest')).toHaveLength(16);
    store.emails.searchTuning = { plan: 'filter' };
    store.settings.set('search-plans-test', 'filter');
    const byFilter: unknown[] = [];
    for (const q of ['kalo', 'nube', 'kalo lopa', 'zzz'])
      for (const extra of [{}, { folder: 'archive' as const }])
        byFilter.push(
          walk(store, { mailbox: MAILBOX, match: ftsMatchExpression(q), ...extra }, 10),
        );
    expect(byFilter).toEqual(pages);
  });

  it('gives way to another plan when a row of the page was stored after a newer email', () => {
    const store = inOrder();
    // Stored last, received before every other email: late, and the newest match of all.
    store.emails.insert(
      storedEmail({
        id: 'em_late',
        mailbox: MAILBOX,
        from: { address: 'a@partner.test', name: null },
        to: [{ address: MAILBOX, name: null }],
        subject: 'kalo',
        messageId: '<late@acme.test>',
        receivedAt: '2025-12-31T00:00:00.000Z',
      }),
    );
    const answered: SearchPlan[] = [];
    store.emails.searchTuning = { plan: 'newest', answeredBy: (plan) => answered.push(plan) };
    const filter: EmailFilter = { mailbox: MAILBOX, match: ftsMatchExpression('kalo') };
    const page = store.emails.list(filter, 10);
    expect(answered[0]).not.toBe('newest');
    expect(page.emails.map((e) => e.id)).not.toContain('em_late');
    store.emails.searchTuning = { plan: 'filter' };
    store.settings.set('search-plans-test', 'filter');
    expect(store.emails.list(filter, 10)).toEqual(page);
  });

  it('answers every page itself, the same pages as the filter plan', () => {
    const store = inOrder();
    const filter: EmailFilter = { mailbox: MAILBOX, match: ftsMatchExpression('kalo') };
    const answered: SearchPlan[] = [];
    store.emails.searchTuning = { plan: 'range', answeredBy: (plan) => answered.push(plan) };
    const byRange = walk(store, filter, 10);
    store.emails.searchTuning = { plan: 'filter' };
    store.settings.set('search-plans-test', 'filter');
    expect(walk(store, filter, 10)).toEqual(byRange);
    expect(answered.length).toBeGreaterThan(5);
    expect(new Set(answered)).toEqual(new Set(['range']));
  });
});

describe('the plan of a search whose other filters few emails pass', () => {
  /** 2,000 emails stored as received; `kalo` in every tenth, every fiftieth starred. */
  function sparse(): Store {
    const store = openStore();
    store.directory.createMailbox({ address: MAILBOX, domain: 'acme.test', displayName: null });
    store.transaction(() => {
      for (let n = 0; n < 2000; n += 1) {
        store.emails.insert(
          storedEmail({
            id: `em_${String(n).padStart(4, '0')}`,
            mailbox: MAILBOX,
            starred: n % 50 === 7,
            from: { address: 'a@partner.test', name: null },
            to: [{ address: MAILBOX, name: null }],
            subject: n % 10 === 7 ? 'kalo' : 'sol',
            messageId: `<s${n}@acme.test>`,
            receivedAt: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
          }),
        );
      }
    });
    return store;
  }

  it('sorts the matches when the page would walk the whole mailbox, and gives the same page', () => {
    const store = sparse();
    const answered: SearchPlan[] = [];
    store.emails.searchTuning = { answeredBy: (plan) => answered.push(plan) };
    const starred: EmailFilter = {
      mailbox: MAILBOX,
      match: ftsMatchExpression('kalo'),
      starred: true,
    };
    const chosen = walk(store, starred, 25);
    // 200 matches, 40 of them starred: a walk for 26 would read all 2,000 emails. The first
    // page reads the 200 matches from the newest (the sort plan's reads, without the sort), the
    // page after the cursor sorts them (each page read as list, then as JSON).
    expect(answered).toEqual(['newest', 'newest', 'sort', 'sort']);
    // Without the filter, the walk for 26 is about 260 emails deep: the matches are not sorted.
    const before = answered.length;
    walk(store, { mailbox: MAILBOX, match: ftsMatchExpression('kalo') }, 25);
    expect(answered.length).toBeGreaterThan(before);
    expect(answered.slice(before)).not.toContain('sort');
    store.emails.searchTuning = { plan: 'filter' };
    store.settings.set('search-plans-test', 'filter');
    expect(walk(store, starred, 25)).toEqual(chosen);
  });
});
