import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { emailSummary } from '../domain/email-view.ts';
import type { Address, Email } from '../domain/types.ts';
import { statementsRan } from '../test-helpers/statements-ran.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';
import { openStore, type Store } from './store.ts';

const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-email-store-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const MAILBOX = 'box@acme.test';

function storeWithMailbox(path = ':memory:'): Store {
  const store = openStore(path);
  store.directory.createMailbox({ address: MAILBOX, domain: 'acme.test', displayName: null });
  return store;
}

// Any UTF-16 text, lone surrogates and control characters included: SQLite's UTF-8 changes
// some of it, and the ready JSON must show what a row read back shows.
const text = fc.string({ unit: 'binary', maxLength: 40 });
const address: fc.Arbitrary<Address> = fc.record({ address: text, name: fc.option(text) });

function email(
  n: number,
  parts: { subject: string; snippet: string; from: Address; to: Address[] },
): Email {
  return storedEmail({
    id: `em_${String(n).padStart(6, '0')}`,
    mailbox: MAILBOX,
    folder: (['inbox', 'archive', 'spam'] as const)[n % 3] as Email['folder'],
    read: n % 2 === 0,
    starred: n % 5 === 0,
    from: parts.from,
    to: parts.to,
    cc: parts.to.slice(1),
    subject: parts.subject,
    snippet: parts.snippet,
    messageId: `<m${n}@acme.test>`,
    receivedAt: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  });
}

/** What the list answer was before summaries were kept as JSON: each summary serialised. */
function serialised(store: Store, after?: { receivedAt: string; id: string }): string[] {
  return store.emails
    .list({ mailbox: MAILBOX }, 100, after)
    .emails.map((s) => JSON.stringify(emailSummary(s)));
}

/** The page's JSON, the summaries comma-separated, checked against its UTF-8 length. */
function joined(page: { json: string; bytes: number }): string {
  expect(page.bytes).toBe(Buffer.byteLength(page.json));
  return page.json;
}

describe('EmailStore.listJson', () => {
  it('gives each summary exactly as serialising the row read back, for any text', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            subject: text,
            snippet: text,
            from: address,
            to: fc.array(address, { maxLength: 3 }),
          }),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        (parts) => {
          const store = storeWithMailbox();
          parts.forEach((p, n) => store.emails.insert(email(n, p)));
          expect(joined(store.emails.listJson({ mailbox: MAILBOX }, 100))).toEqual(
            serialised(store).join(','),
          );
          store.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('shows folder, read and starred as changed, and pages like list', () => {
    const store = storeWithMailbox();
    for (let n = 0; n < 30; n += 1) {
      store.emails.insert(
        email(n, {
          subject: `s${n}`,
          snippet: '',
          from: { address: 'a@b.test', name: null },
          to: [],
        }),
      );
    }
    store.emails.update('em_000004', { folder: 'trash', read: false, starred: true });
    const page = store.emails.listJson({ mailbox: MAILBOX }, 10);
    expect(page.more).toBe(true);
    expect(page.last).toEqual({ id: 'em_000020', receivedAt: '2026-01-01T00:00:20.000Z' });
    expect(joined(page)).toEqual(serialised(store).slice(0, 10).join(','));
    const next = store.emails.listJson({ mailbox: MAILBOX }, 100, page.last);
    expect(joined(next)).toEqual(serialised(store, page.last).join(','));
    const texts = serialised(store, page.last);
    expect(texts.at(-1)).toContain('"id":"em_000000"');
    expect(JSON.parse(texts[15] as string)).toMatchObject({
      folder: 'trash',
      read: false,
      starred: true,
    });
    store.close();
  });

  it('answers a repeated page afresh after any write: a PATCH, a new email, a delete', () => {
    const store = storeWithMailbox();
    const from = { address: 'a@b.test', name: null };
    for (let n = 0; n < 3; n += 1) {
      store.emails.insert(email(n, { subject: `s${n}`, snippet: '', from, to: [] }));
    }
    const page = () => joined(store.emails.listJson({ mailbox: MAILBOX }, 10));
    expect(page()).toEqual(serialised(store).join(','));
    store.emails.update('em_000001', { starred: true });
    expect(page()).toContain(
      '"id":"em_000001","mailbox":"box@acme.test","folder":"archive","read":false,"starred":true',
    );
    store.emails.insert(email(3, { subject: 's3', snippet: '', from, to: [] }));
    expect(page()).toEqual(serialised(store).join(','));
    store.emails.delete('em_000003');
    expect(page()).toEqual(serialised(store).join(','));
    expect(page()).not.toContain('em_000003');
    store.close();
  });

  it('keeps no page: one asked again at the same data version is read again, not kept from before', () => {
    const store = storeWithMailbox();
    const from = { address: 'a@b.test', name: null };
    for (let n = 0; n < 30; n += 1)
      store.emails.insert(email(n, { subject: `report ${n}`, snippet: '', from, to: [] }));
    const version = store.version.current();
    const second = store.emails.listJson({ mailbox: MAILBOX }, 10).last;
    for (const [filter, after] of [
      [{ mailbox: MAILBOX }, undefined],
      [{ mailbox: MAILBOX, match: 'report', folder: 'inbox' as const }, undefined],
      [{ mailbox: MAILBOX }, second],
      [{ mailbox: MAILBOX, match: 'report' }, second],
    ] as const) {
      const read = () => store.emails.listJson(filter, 10, after);
      const pages = [read()];
      const ran = [0, 1].map(() => statementsRan(store.db, () => pages.push(read())));
      // The same answer, read three times (the first builds what the store keeps in memory):
      // each a new page, and a page past the first runs its statements each time (a page kept
      // until the next write ran none).
      expect(pages[0]?.bytes).toBeGreaterThan(0);
      expect(pages[2]).toEqual(pages[0]);
      expect(pages[2]).not.toBe(pages[1]);
      expect(pages[1]).not.toBe(pages[0]);
      expect(pages[2]?.version).toBe(version);
      expect(ran[1]).toEqual(ran[0]);
      if (after !== undefined) expect(ran[1]?.length).toBeGreaterThan(0);
    }
    store.close();
  });

  it('writes nothing for a change to what the email already holds, and applies every other', () => {
    const from = { address: 'a@b.test', name: null };
    const change = fc.record(
      {
        folder: fc.constantFrom('inbox' as const, 'archive' as const, 'trash' as const),
        read: fc.boolean(),
        starred: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 12 }), (changes) => {
        const store = storeWithMailbox();
        store.emails.insert(email(1, { subject: 's', snippet: '', from, to: [] }));
        const row = () =>
          store.db.prepare('SELECT folder, read, starred, summary_json FROM emails').get();
        for (const c of changes) {
          const before = store.emails.get('em_000001') as Email;
          const versionBefore = store.version.current();
          const same = Object.entries(c).every(
            ([name, value]) => before[name as keyof Email] === value,
          );
          expect(store.emails.update('em_000001', c)).toBe(true);
          const after = store.emails.get('em_000001') as Email;
          expect(after).toEqual({ ...before, ...c });
          // Unchanged: no write at all (the data version counts every row written).
          expect(store.version.current() === versionBefore).toBe(same);
          expect(row()).toMatchObject({ summary_json: JSON.stringify(emailSummary(after)) });
        }
        expect(store.emails.update('em_missing', { read: true })).toBe(false);
        store.close();
      }),
      { numRuns: 60 },
    );
  });

  it('writes the summaries of a database file from before migration 006 when it is opened', () => {
    const path = join(scratch, 'old.db');
    const store = storeWithMailbox(path);
    store.emails.insert(
      email(1, { subject: 'kept', snippet: 'x', from: { address: 'a@b.test', name: 'A' }, to: [] }),
    );
    // As a file written before the column existed, or with another summary shape.
    store.db.exec('UPDATE emails SET summary_json = NULL');
    store.db.exec("DELETE FROM settings WHERE name = 'summary-shape'");
    store.close();
    const reopened = openStore(path);
    expect(joined(reopened.emails.listJson({ mailbox: MAILBOX }, 10))).toEqual(
      serialised(reopened).join(','),
    );
    reopened.close();
  });
});
