/**
 * Migration 015: an email is late when its mailbox held, as it was stored, an email newer than
 * it (receivedAt, then id; D-17). The newest search plan trusts a page only while none of its
 * rows is late (page-query.ts), so the flag must never miss one: set by a trigger for each new
 * email, and for the emails of a file written before the migration when it is applied.
 */
import { describe, expect, it } from 'vitest';
import { ftsMatchExpression } from '../domain/search.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';
import { migrate } from './database.ts';
import { openStore, type Store } from './store.ts';

const A = 'a@acme.test';
const B = 'b@acme.test';

function store(): Store {
  const s = openStore();
  for (const address of [A, B])
    s.directory.createMailbox({ address, domain: 'acme.test', displayName: null });
  return s;
}

function put(s: Store, id: string, mailbox: string, receivedAt: string): void {
  s.emails.insert(
    storedEmail({
      id,
      mailbox,
      from: { address: 'x@partner.test', name: null },
      to: [{ address: mailbox, name: null }],
      subject: 'kalo',
      messageId: `<${id}@acme.test>`,
      receivedAt,
    }),
  );
}

const lateOnes = (s: Store) =>
  s.db.prepare('SELECT id FROM emails WHERE late = 1 ORDER BY seq').pluck().all();

/** Stored in this order: [id, mailbox, receivedAt]. */
const STORED: [string, string, string][] = [
  ['e1', A, '2026-01-01T10:00:00.000Z'],
  ['e2', A, '2026-01-01T11:00:00.000Z'],
  // Older than e2 in its mailbox: late.
  ['e3', A, '2026-01-01T10:30:00.000Z'],
  // Older than e2 and e3 too, but the first of mailbox B: not late.
  ['e4', B, '2026-01-01T09:00:00.000Z'],
  // Newer than all: not late.
  ['e5', A, '2026-01-01T12:00:00.000Z'],
  // Received at the same instant as e5, id lower: after e5 in the newest-first order, late.
  ['e0', A, '2026-01-01T12:00:00.000Z'],
  // Same instant, id higher: before e5 in the order, not late.
  ['e9', A, '2026-01-01T12:00:00.000Z'],
];

describe('late emails', () => {
  it('are marked as they are stored: those of a mailbox that held a newer email', () => {
    const s = store();
    for (const [id, mailbox, at] of STORED) put(s, id, mailbox, at);
    expect(lateOnes(s)).toEqual(['e3', 'e0']);
  });

  it('are marked when the migration is applied to a file written before it, ties counted late', () => {
    const s = store();
    for (const [id, mailbox, at] of STORED) put(s, id, mailbox, at);
    // The file as migration 014 left it: no flag, no trigger.
    s.db.exec(`DROP TRIGGER emails_late; ALTER TABLE emails DROP COLUMN late;
      DELETE FROM schema_migrations WHERE version = 15`);
    expect(migrate(s.db)).toEqual(['015_late_emails.sql']);
    // e9 ties with e5 and is counted late: a late flag too many costs time, never a row.
    expect(lateOnes(s)).toEqual(['e3', 'e0', 'e9']);
  });

  it('keep a search page the same whichever plan reads it', () => {
    const s = store();
    for (const [id, mailbox, at] of STORED) put(s, id, mailbox, at);
    const filter = { mailbox: A, match: ftsMatchExpression('kalo') };
    const pages = (['newest', 'filter', 'sort'] as const).map((plan) => {
      s.emails.searchTuning = { plan };
      s.settings.set('late-emails-test', plan);
      return [2, 3, 10].map((limit) => s.emails.list(filter, limit));
    });
    expect(pages[0]?.[2]?.emails.map((e) => e.id)).toEqual(['e9', 'e5', 'e0', 'e2', 'e3', 'e1']);
    expect(pages[0]).toEqual(pages[1]);
    expect(pages[0]).toEqual(pages[2]);
  });
});
