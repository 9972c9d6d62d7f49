/**
 * Migration 009: a page filtered by read, starred or folder decides which emails it lists from
 * the list's indexes alone, reading the table row only of an email it lists (issue 31 item 1:
 * without it, a starred page of 10,000 emails read about 290 rows to list 26).
 */
import { describe, expect, it } from 'vitest';
import { openDatabase } from './database.ts';

const NEWEST_FIRST = 'ORDER BY e.received_at DESC, e.id DESC LIMIT 26';

function planOf(where: string): string {
  const db = openDatabase();
  try {
    // What a page needs of every candidate: its place in the order and its filters.
    return (
      db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT e.id, e.received_at FROM emails e WHERE ${where} ${NEWEST_FIRST}`,
        )
        .all() as { detail: string }[]
    )
      .map((r) => r.detail)
      .join('; ');
  } finally {
    db.close();
  }
}

describe('the list indexes', () => {
  it.each([
    ["e.mailbox = 'm' AND e.read = 1", 'emails_by_mailbox'],
    ["e.mailbox = 'm' AND e.starred = 1", 'emails_by_mailbox'],
    ["e.mailbox = 'm' AND e.read = 0 AND e.starred = 1", 'emails_by_mailbox'],
    ["e.mailbox = 'm' AND e.folder = 'inbox' AND e.starred = 1", 'emails_by_folder'],
    ["e.mailbox = 'm' AND e.folder = 'spam' AND e.read = 0", 'emails_by_folder'],
  ])('filter %s newest first from %s without reading a row', (where, index) => {
    const plan = planOf(where);
    expect(plan).toContain(`USING COVERING INDEX ${index}`);
    expect(plan).not.toContain('TEMP B-TREE');
  });
});
