/**
 * The webhook store's statements keep their plan: a bare parameter in a LIMIT is read by
 * SQLite's planner, and better-sqlite3 binds every parameter on every run, so such a statement
 * was prepared again each time it ran (page-query.test.ts tells the same of the list). `due`
 * runs after every message that reaches a webhook's mailbox (issue 31 item 2's profile).
 */
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { WebhookStore } from './webhook-store.ts';

/**
 * A database that records every SQL text prepared on it; each statement answers no rows, but a
 * single row's read says a pending delivery is due (so `due` reads its rows).
 */
function recording(): { db: Database.Database; texts: string[] } {
  const texts: string[] = [];
  const statement = {
    all: () => [],
    get: () => ({ at: '2000-01-01T00:00:00.000Z' }),
    run: () => ({ changes: 0 }),
  };
  const db = {
    prepare: (text: string) => {
      texts.push(text);
      return statement;
    },
  } as unknown as Database.Database;
  return { db, texts };
}

describe('webhook store statements', () => {
  it.each([
    ['the due deliveries', (store: WebhookStore) => store.due('2026-01-01T00:00:00.000Z', 32)],
    ["a webhook's recent deliveries", (store: WebhookStore) => store.recentDeliveries('wh_1', 50)],
  ])('binds no LIMIT as a bare parameter in %s', (_name, read) => {
    const { db, texts } = recording();
    read(new WebhookStore(db));
    const limits = texts.flatMap((text) => text.match(/LIMIT\s+[^\s)]+(\s+\+\s+0)?/g) ?? []);
    expect(limits.length, texts.join('\n')).toBeGreaterThan(0);
    for (const limit of limits) expect(limit).toBe('LIMIT ? + 0');
  });
});
