import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStore } from './store.ts';
import type { Email } from '../domain/types.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';

const MIGRATION_007 = readFileSync(
  new URL('./migrations/007_fts_prefix.sql', import.meta.url),
  'utf8',
);

function email(n: number, subject: string, text: string): Email {
  return storedEmail({
    id: `em_${n}`,
    mailbox: 'box@acme.test',
    from: { address: `sender${n % 3}@partner.test`, name: n % 2 === 0 ? `Ana Núñez ${n}` : null },
    to: [{ address: 'box@acme.test', name: 'Box' }],
    cc: n % 4 === 0 ? [{ address: 'carol@acme.test', name: null }] : [],
    subject,
    snippet: text.slice(0, 200),
    text,
    messageId: `<m${n}@partner.test>`,
    receivedAt: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  });
}

const QUERIES = [
  '"kal"*',
  '"kalimera"',
  '"nun"*',
  '"núñez"',
  '"carol"',
  '"box"',
  '"partner"',
  '"sen"*',
  '"ana" "kal"*',
  '"zzz"*',
];

describe('migration 007 (FTS5 prefix index)', () => {
  it('rebuilds an index that finds what the index written email by email finds', () => {
    const store = openStore();
    store.directory.createMailbox({
      address: 'box@acme.test',
      domain: 'acme.test',
      displayName: null,
    });
    const words = ['kalimera', 'kalo', 'kamera', 'nunca', 'senior', 'sentence', 'Kálos'];
    for (let n = 0; n < 60; n += 1) {
      store.emails.insert(
        email(n, `${words[n % 7]} ${n}`, `${words[(n * 3) % 7]} body ${words[(n * 5) % 7]}`),
      );
    }
    const found = () =>
      QUERIES.map((q) =>
        (
          store.db
            .prepare('SELECT rowid FROM emails_fts WHERE emails_fts MATCH ? ORDER BY rowid')
            .all(q) as { rowid: number }[]
        ).map((r) => r.rowid),
      );
    const incremental = found();
    expect(incremental.flat().length).toBeGreaterThan(100);
    store.db.exec(MIGRATION_007);
    expect(found()).toEqual(incremental);
    store.close();
  });
});
