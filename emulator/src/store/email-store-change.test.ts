/**
 * A PATCH's change (§4.5) reads the email once and writes it at most once (EmailStore.change),
 * where `update` and then `get` read it three times: its answer, the row it leaves and the data
 * version it moves are `update`'s and then `get`'s, for any email and any change.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emailDetail } from '../domain/email-view.ts';
import type { Folder } from '../domain/types.ts';
import { statementsRan } from '../test-helpers/statements-ran.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';
import { openStore } from './store.ts';

const MAILBOX = 'box@acme.test';
const FOLDERS: Folder[] = ['inbox', 'archive', 'sent', 'spam', 'trash'];

/** A store holding one email with the given flags and attachments (`em_1`). */
function storeWith(flags: { folder: Folder; read: boolean; starred: boolean }, files: number) {
  const store = openStore(':memory:');
  store.directory.createMailbox({ address: MAILBOX, domain: 'acme.test', displayName: null });
  store.emails.insert(
    storedEmail({
      id: 'em_1',
      mailbox: MAILBOX,
      ...flags,
      from: { address: 'a@partner.test', name: 'A "quoted" Zoë' },
      to: [{ address: MAILBOX, name: null }],
      cc: [{ address: 'c@partner.test', name: 'C' }],
      subject: 'subject',
      text: 'text body',
      html: '<p>html body</p>',
      messageId: '<1@partner.test>',
      receivedAt: '2026-01-01T00:00:00.000Z',
      attachmentCount: files,
    }),
    Array.from({ length: files }, (_, i) => ({
      id: `att_${i}`,
      name: `f${i}.txt`,
      contentType: 'text/plain',
      bytes: new TextEncoder().encode(`file ${i}`),
    })),
  );
  return store;
}

const flags = fc.record({
  folder: fc.constantFrom(...FOLDERS),
  read: fc.boolean(),
  starred: fc.boolean(),
});

describe('EmailStore.change', () => {
  it('answers, stores and moves the data version as update then get, reading once', () => {
    fc.assert(
      fc.property(
        flags,
        fc.record(
          { folder: fc.constantFrom(...FOLDERS), read: fc.boolean(), starred: fc.boolean() },
          { requiredKeys: [] },
        ),
        fc.integer({ min: 0, max: 2 }),
        (held, changes, files) => {
          const changed = storeWith(held, files);
          const updated = storeWith(held, files);
          const before = changed.version.current();
          let answer: unknown;
          const ran = statementsRan(changed.db, () => {
            answer = changed.emails.change('em_1', changes);
          });
          updated.emails.update('em_1', changes);
          const expected = updated.emails.get('em_1');
          expect(JSON.stringify(emailDetail(answer as never))).toBe(
            JSON.stringify(emailDetail(expected as never)),
          );
          expect(changed.emails.get('em_1')).toEqual(expected);
          expect(changed.emails.listJson({ mailbox: MAILBOX }, 10).json).toBe(
            updated.emails.listJson({ mailbox: MAILBOX }, 10).json,
          );
          const writes = Object.entries(changes).some(
            ([name, value]) => held[name as keyof typeof held] !== value,
          );
          expect(changed.version.current() !== before).toBe(writes);
          // One read of the email (and of its attachments when it has some), one write at most.
          expect(ran.filter((sql) => sql.includes('JOIN email_contents'))).toHaveLength(1);
          expect(ran.filter((sql) => sql.startsWith('UPDATE emails'))).toHaveLength(writes ? 1 : 0);
          expect(ran).toHaveLength(1 + (files > 0 ? 1 : 0) + (writes ? 1 : 0));
          changed.close();
          updated.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers nothing for an email that is not there, and writes nothing', () => {
    const store = storeWith({ folder: 'inbox', read: false, starred: false }, 0);
    const before = store.version.current();
    expect(store.emails.change('em_none', { read: true })).toBeUndefined();
    expect(store.version.current()).toBe(before);
    store.close();
  });
});
