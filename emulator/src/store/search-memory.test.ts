/**
 * The newest plan's rows chosen in memory (search-memory.ts) are the rows the database gives:
 * after any sequence of writes (mail stored in or out of the order it was received, PATCHes,
 * moves, deletions, writes rolled back, SMTP's group commit, SQL run on the connection directly,
 * a reset), every first page of a search, with any folder, read and starred filter and page
 * size, is the filter plan's page and the newest plan's from the database, byte for byte.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ftsMatchExpression, type SearchPlan } from '../domain/search.ts';
import type { EmailFilter, Folder } from '../domain/types.ts';
import { statementsRan } from '../test-helpers/statements-ran.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';
import { SEARCH_MEMORY_LIMITS, searchMemory, type SearchMemory } from './search-memory.ts';
import { openStore, type Store } from './store.ts';

const MAILBOXES = ['box@acme.test', 'other@acme.test'];
const FOLDERS: Folder[] = ['inbox', 'archive', 'trash'];
const WORDS = ['kalo', 'lopa', 'mira', 'nube', 'sol'];
const LIMITS = { ...SEARCH_MEMORY_LIMITS };

afterEach(() => Object.assign(SEARCH_MEMORY_LIMITS, LIMITS));

function withMailboxes(store: Store): Store {
  for (const address of MAILBOXES)
    store.directory.createMailbox({ address, domain: 'acme.test', displayName: null });
  return store;
}

const folder = fc.constantFrom(...FOLDERS);
const newEmail = fc.record({
  mailbox: fc.constantFrom(...MAILBOXES),
  folder,
  read: fc.boolean(),
  starred: fc.boolean(),
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
  // How many minutes before its place in the order of storing it was received: mostly none,
  // sometimes some (a late email, or a tie).
  back: fc.oneof(
    { weight: 8, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) },
  ),
});
const change = fc.record(
  { folder, read: fc.boolean(), starred: fc.boolean() },
  { requiredKeys: [] },
);
const search = fc.record({
  // undefined: no q, a page of the list query (from memory too when it is of summary texts).
  q: fc.constantFrom<string | undefined>(
    'kalo',
    'kalo',
    'lopa',
    'mira nube',
    'sol kalo',
    'lop*',
    'zzz',
    undefined,
    undefined,
  ),
  mailbox: fc.constantFrom(...MAILBOXES, ...MAILBOXES, 'none@acme.test'),
  // Each filter as often absent as given, so that pages hold several rows.
  folder: fc.option(folder, { nil: undefined, freq: 2 }),
  read: fc.option(fc.boolean(), { nil: undefined, freq: 2 }),
  starred: fc.option(fc.boolean(), { nil: undefined, freq: 2 }),
  limit: fc.integer({ min: 1, max: 12 }),
});
const write = fc.oneof(
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('insert' as const), email: newEmail }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('update' as const), at: fc.nat(), change }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('undone' as const),
      at: fc.nat(),
      change,
      email: newEmail,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sql' as const), at: fc.nat() }) },
  // SQL that rewrites a summary's text alone, or receives an email earlier and marks it late.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('text' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('late' as const), at: fc.nat() }) },
  // SQL that moves an email to the other mailbox, received before all its mail (and late).
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('move' as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('group' as const),
      emails: fc.array(newEmail, { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
);
const step = fc.record({ write, searches: fc.array(search, { minLength: 1, maxLength: 4 }) });

type Write = typeof write extends fc.Arbitrary<infer T> ? T : never;
type NewEmail = typeof newEmail extends fc.Arbitrary<infer T> ? T : never;

/** An unread, unstarred inbox email of box@acme.test whose text is the one word kalo. */
const PLAIN_KALO: NewEmail = {
  mailbox: 'box@acme.test',
  folder: 'inbox',
  read: false,
  starred: false,
  words: ['kalo'],
  back: 0,
};

/** Applies `w`; `ids` are the emails stored (some since deleted). Returns the email changed. */
function apply(store: Store, ids: string[], w: Write): string | undefined {
  // Counted from the newest (fast-check favours small numbers): the emails first pages show.
  const pick = (at: number) => ids[ids.length - 1 - (at % Math.max(ids.length, 1))];
  const insert = (email: NewEmail) => {
    const id = `em_${String(ids.length).padStart(5, '0')}`;
    store.emails.insert(
      storedEmail({
        id,
        mailbox: email.mailbox,
        folder: email.folder,
        read: email.read,
        starred: email.starred,
        from: { address: 'a@partner.test', name: null },
        to: [{ address: email.mailbox, name: null }],
        subject: email.words.join(' '),
        messageId: `<${id}@acme.test>`,
        receivedAt: new Date(
          Date.UTC(2026, 0, 1) + (ids.length - email.back) * 60_000,
        ).toISOString(),
      }),
    );
    ids.push(id);
  };
  if (w.kind === 'insert') insert(w.email);
  else if (w.kind === 'update') {
    const id = pick(w.at);
    if (id !== undefined) store.emails.update(id, w.change);
    return id;
  } else if (w.kind === 'delete') {
    const id = pick(w.at);
    if (id !== undefined) store.emails.delete(id);
  } else if (w.kind === 'undone') {
    const id = pick(w.at);
    const kept = ids.length;
    expect(() =>
      store.transaction(() => {
        if (id !== undefined) store.emails.update(id, w.change);
        insert(w.email);
        throw new Error('undone');
      }),
    ).toThrow('undone');
    ids.length = kept;
    return id;
  } else if (w.kind === 'group') {
    // As SMTP's group commit: one transaction, the search rows written after the emails.
    store.transaction(() => store.emails.indexAfter(() => w.emails.forEach(insert)));
  } else if (w.kind === 'sql') {
    const id = pick(w.at);
    if (id !== undefined)
      store.db
        .prepare("UPDATE emails SET starred = 1 - starred, folder = 'spam' WHERE id = ?")
        .run(id);
    return id;
  } else if (w.kind === 'text') {
    const id = pick(w.at);
    if (id !== undefined)
      store.db
        .prepare(
          "UPDATE emails SET summary_json = replace(summary_json, 'partner', 'Partner') WHERE id = ?",
        )
        .run(id);
    return id;
  } else if (w.kind === 'late') {
    const id = pick(w.at);
    if (id !== undefined)
      store.db
        .prepare(
          "UPDATE emails SET received_at = strftime('%Y-%m-%dT%H:%M:%fZ', received_at, '-30 minutes'), late = 1 WHERE id = ?",
        )
        .run(id);
    return id;
  } else if (w.kind === 'move') {
    const id = pick(w.at);
    if (id !== undefined)
      store.db
        .prepare(
          `UPDATE emails SET mailbox = CASE mailbox WHEN ? THEN ? ELSE ? END,
             received_at = '2000-01-01T00:00:00.000Z', late = 1 WHERE id = ?`,
        )
        .run(MAILBOXES[0], MAILBOXES[1], MAILBOXES[0], id);
    return id;
  } else {
    store.reset();
    withMailboxes(store);
  }
  return undefined;
}

describe('the newest plan from memory', () => {
  it('gives the pages the database gives after any writes', () => {
    // Small reads, so that lists are read in several chunks, extended above and read again.
    Object.assign(SEARCH_MEMORY_LIMITS, { chunk: 1, rereadAbove: 3, rebuildAfter: 4, logCap: 20 });
    let fromMemory = 0;
    let listsFromMemory = 0;
    fc.assert(
      fc.property(
        fc.array(newEmail, { minLength: 10, maxLength: 60, size: 'max' }),
        fc.array(step, { minLength: 1, maxLength: 30, size: 'max' }),
        (first, steps) => {
          const store = withMailboxes(openStore());
          const ids: string[] = [];
          for (const email of first) apply(store, ids, { kind: 'insert', email });
          for (const { write: w, searches } of steps) {
            const changed = apply(store, ids, w);
            // The email changed, by its first word, with its flags as they are and as they were.
            const email = changed === undefined ? undefined : store.emails.get(changed);
            if (email !== undefined)
              for (const flags of [
                { folder: email.folder, read: email.read, starred: email.starred },
                { read: !email.read },
                { starred: !email.starred },
                { folder: email.folder === 'inbox' ? ('archive' as const) : ('inbox' as const) },
              ])
                searches.push({
                  q: email.subject.split(' ')[0] as string,
                  mailbox: email.mailbox,
                  folder: undefined,
                  read: undefined,
                  starred: undefined,
                  limit: 12,
                  ...flags,
                });
            for (const s of searches) {
              const filter: EmailFilter = {
                mailbox: s.mailbox,
                ...(s.q === undefined ? {} : { match: ftsMatchExpression(s.q) }),
                ...(s.folder === undefined ? {} : { folder: s.folder }),
                ...(s.read === undefined ? {} : { read: s.read }),
                ...(s.starred === undefined ? {} : { starred: s.starred }),
              };
              const answered: SearchPlan[] = [];
              store.emails.searchTuning = { answeredBy: (plan) => answered.push(plan) };
              const chosen = store.emails.list(filter, s.limit);
              const json = store.emails.listJson(filter, s.limit);
              if (answered[0] === 'newest' && chosen.emails.length > 1) {
                if (s.q === undefined) listsFromMemory += 1;
                else fromMemory += 1;
              }
              store.emails.searchTuning = { plan: 'filter' };
              expect(store.emails.list(filter, s.limit)).toEqual(chosen);
              store.emails.searchTuning = { plan: 'newest', memory: false };
              expect(store.emails.list(filter, s.limit)).toEqual(chosen);
              // The page cache is emptied by a write, so the JSON page is read again.
              store.settings.set('search-memory-test', String(fromMemory));
              store.emails.searchTuning = { plan: 'filter' };
              expect({ ...store.emails.listJson(filter, s.limit), version: '' }).toEqual({
                ...json,
                version: '',
              });
            }
          }
          store.close();
        },
      ),
      // A failure is reported as found: shrinking runs of this size takes minutes.
      { numRuns: 100, endOnFailure: true },
    );
    // Many of the pages compared, of more than one row, were chosen in memory.
    expect(fromMemory).toBeGreaterThan(200);
    expect(listsFromMemory).toBeGreaterThan(100);
  });

  it('reads nothing from the database for a first page whose summaries it holds', () => {
    const store = withMailboxes(openStore());
    const ids: string[] = [];
    for (let n = 0; n < 40; n += 1)
      apply(store, ids, { kind: 'insert', email: { ...PLAIN_KALO, starred: n % 3 === 0 } });
    const pages: EmailFilter[] = [
      { mailbox: 'box@acme.test' },
      { mailbox: 'box@acme.test', starred: true },
      { mailbox: 'box@acme.test', match: ftsMatchExpression('kalo'), starred: true },
    ];
    const first = pages.map((filter) => store.emails.listJson(filter, 10));
    // Another table written: the data version moves (the page cache is emptied), no email did.
    store.settings.set('search-memory-test', 'x');
    let again: string[] = [];
    expect(
      statementsRan(store.db, () => {
        again = pages.map((filter) => store.emails.listJson(filter, 10).json);
      }),
    ).toEqual([]);
    expect(again).toEqual(first.map((page) => page.json));
    // A PATCH's email is read again once, with its summary text, for every page after it
    // (each page holds the same emails as before).
    const patched = ids.at(-1) as string;
    store.emails.update(patched, { read: true, folder: 'archive' });
    const expected = pages.map((filter) => {
      store.emails.searchTuning = { memory: false };
      const page = store.emails.listJson(filter, 10);
      store.emails.searchTuning = {};
      store.settings.set('search-memory-test', page.json);
      return page.json;
    });
    expect(expected[0]).toContain(patched);
    let afterPatch: string[] = [];
    expect(
      statementsRan(store.db, () => {
        afterPatch = pages.map((filter) => store.emails.listJson(filter, 10).json);
      }),
    ).toEqual([
      expect.stringContaining('FROM temp.mailtwin_email_writes'),
      expect.stringContaining('FROM emails e WHERE seq = ?'),
    ]);
    expect(afterPatch).toEqual(expected);
    store.close();
  });

  it('gives way inside a transaction, whose writes may yet be undone', () => {
    const store = withMailboxes(openStore());
    apply(store, [], { kind: 'insert', email: PLAIN_KALO });
    // Were the flags read from memory there, the email would not be starred yet.
    const filter = { mailbox: 'box@acme.test', match: ftsMatchExpression('kalo') };
    expect(store.emails.list(filter, 10).emails).toHaveLength(1);
    store.transaction(() => {
      store.emails.update('em_00000', { starred: true });
      expect(store.emails.list({ ...filter, starred: true }, 10).emails).toHaveLength(1);
    });
    expect(store.emails.list({ ...filter, starred: true }, 10).emails).toHaveLength(1);
    // Read inside a transaction undone after: what it read must not outlive it.
    expect(() =>
      store.transaction(() => {
        store.emails.update('em_00000', { starred: false });
        expect(store.emails.list({ ...filter, starred: false }, 10).emails).toHaveLength(1);
        throw new Error('undone');
      }),
    ).toThrow('undone');
    expect(store.emails.list({ ...filter, starred: false }, 10).emails).toHaveLength(0);
    expect(store.emails.list({ ...filter, starred: true }, 10).emails).toHaveLength(1);
    store.close();
  });

  it('keeps a bounded number of lists and matches, however many searches are made', () => {
    Object.assign(SEARCH_MEMORY_LIMITS, { maxLists: 5, maxRows: 30, chunk: 1 });
    const store = withMailboxes(openStore());
    const ids: string[] = [];
    for (let n = 0; n < 40; n += 1) apply(store, ids, { kind: 'insert', email: PLAIN_KALO });
    const memory = searchMemory(
      (store.emails as unknown as { sql: Parameters<typeof searchMemory>[0] }).sql,
    ) as SearchMemory;
    for (let n = 0; n < 50; n += 1) {
      // Words that match nothing keep an empty list each (and so does a search of kalo and one of
      // them, starred, after reading all 40 rows of the index it needs).
      store.emails.list({ mailbox: 'box@acme.test', match: ftsMatchExpression(`none${n}`) }, 10);
      if (n % 10 === 9)
        store.emails.list(
          { mailbox: 'box@acme.test', match: ftsMatchExpression(`kalo none${n}`), starred: true },
          10,
        );
      expect(memory.kept().lists).toBeLessThanOrEqual(5);
      expect(memory.kept().rows).toBeLessThanOrEqual(30 + 40);
    }
    store.close();
  });
});
