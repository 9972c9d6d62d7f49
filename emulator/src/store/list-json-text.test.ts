/**
 * A page of GET /emails reads one stored text a row from SQLite and encodes the page once
 * (summary-json.ts, migration 013): a Buffer a row, as a blob column gives, cost about four
 * times a string of the same bytes (issue 31 item 1: 101 summaries, about 470 against 70 µs),
 * and an array a row with the values to fill in about as much again.
 */
import { describe, expect, it } from 'vitest';
import { emailSummary } from '../domain/email-view.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';
import { openStore } from './store.ts';

const MAILBOX = 'box@acme.test';

describe('EmailStore.listJson', () => {
  it('reads one string a row from SQLite for a page, and gives the same bytes as each summary serialised', () => {
    const store = openStore(':memory:');
    store.directory.createMailbox({ address: MAILBOX, domain: 'acme.test', displayName: null });
    for (let n = 0; n < 30; n += 1) {
      store.emails.insert(
        storedEmail({
          id: `em_${String(n).padStart(4, '0')}`,
          mailbox: MAILBOX,
          folder: n % 2 === 0 ? 'inbox' : 'archive',
          read: n % 3 === 0,
          starred: n % 5 === 0,
          from: { address: 'a@partner.test', name: `Zoë ${n} \u{1F600} \ud800` },
          to: [{ address: MAILBOX, name: null }],
          subject: `s${n} ü "quoted" \u0001\u0002\u0003`,
          messageId: `<${n}@partner.test>`,
          receivedAt: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
        }),
      );
    }
    store.emails.update('em_0004', { folder: 'trash', read: true, starred: true });
    // Every row any statement gives JavaScript while the page is read.
    const statement = Object.getPrototypeOf(store.db.prepare('SELECT 1')) as {
      all: (...args: unknown[]) => unknown[];
    };
    const all = statement.all;
    const read: unknown[] = [];
    statement.all = function (this: unknown, ...args: unknown[]) {
      const rows = all.apply(this, args);
      read.push(...rows);
      return rows;
    };
    let page;
    let fromMemory;
    try {
      // By the list query (the first page is otherwise the search memory's, search-memory.ts).
      store.emails.searchTuning = { memory: false };
      page = store.emails.listJson({ mailbox: MAILBOX }, 25);
      expect(read).toHaveLength(26);
      expect(read.filter((row) => typeof row !== 'string')).toEqual([]);
      // From memory: each row's text and its late flag, and the text is a string too.
      store.emails.searchTuning = {};
      store.settings.set('list-json-text-test', 'moves the data version');
      read.length = 0;
      fromMemory = store.emails.listJson({ mailbox: MAILBOX }, 25);
      const texts = read.filter(
        (row) => Array.isArray(row) && row.length === 2 && typeof row[1] === 'number',
      );
      expect(texts).toHaveLength(26);
      expect(texts.filter((row) => typeof (row as unknown[])[0] !== 'string')).toEqual([]);
    } finally {
      statement.all = all;
    }
    expect({ ...fromMemory, version: '' }).toEqual({ ...page, version: '' });

    const expected = store.emails
      .list({ mailbox: MAILBOX }, 25)
      .emails.map((s) => JSON.stringify(emailSummary(s)))
      .join(',');
    expect(page.json === expected).toBe(true);
    expect(page.more).toBe(true);
    expect(page.last).toEqual({ id: 'em_0005', receivedAt: '2026-01-01T00:00:05.000Z' });
    store.close();
  });

  it("names where a page ends whatever its last email's id and receivedAt hold", () => {
    const store = openStore(':memory:');
    store.directory.createMailbox({ address: MAILBOX, domain: 'acme.test', displayName: null });
    const odd = [
      'em_plain',
      'em_"quoted"',
      'em_back\\slash\\',
      'em_","mailbox":"x',
      'em_,"receivedAt":"y"}',
      'em_\u{1F600}',
      'em_\n\u0001',
    ];
    odd.forEach((id, n) =>
      store.emails.insert(
        storedEmail({
          id,
          mailbox: MAILBOX,
          from: { address: 'a@partner.test', name: null },
          to: [{ address: MAILBOX, name: null }],
          subject: '","receivedAt":"z',
          messageId: `<${n}@partner.test>`,
          // Each page's last email in turn; one receivedAt that is not a date, as SQL could write.
          receivedAt:
            n === 3
              ? '2026-01-01T00:00:03","\\'
              : new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
        }),
      ),
    );
    for (let limit = 1; limit < odd.length; limit += 1) {
      const page = store.emails.listJson({ mailbox: MAILBOX }, limit);
      const last = JSON.parse(`[${page.json}]`).at(-1) as { id: string; receivedAt: string };
      expect(page.last).toEqual({ id: last.id, receivedAt: last.receivedAt });
      expect(page.last?.id).toBe(odd[odd.length - limit]);
    }
    store.close();
  });

  it('shows folder, read and starred as written by any statement, not only a PATCH', () => {
    const store = openStore(':memory:');
    store.directory.createMailbox({ address: MAILBOX, domain: 'acme.test', displayName: null });
    store.emails.insert(
      storedEmail({
        id: 'em_1',
        mailbox: MAILBOX,
        from: { address: 'a@partner.test', name: null },
        to: [{ address: MAILBOX, name: null }],
        subject: 's',
        messageId: '<1@partner.test>',
        receivedAt: '2026-01-01T00:00:00.000Z',
      }),
    );
    store.db.prepare("UPDATE emails SET folder = 'spam', starred = 1 WHERE id = 'em_1'").run();
    const page = store.emails.listJson({ mailbox: MAILBOX }, 25).json;
    expect(JSON.parse(page)).toMatchObject({ folder: 'spam', read: false, starred: true });
    store.close();
  });
});
