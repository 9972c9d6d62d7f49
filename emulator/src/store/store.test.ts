/**
 * Store.transaction: all of the work written or none, a nested one a savepoint of its own; and
 * one better-sqlite3 transaction function for every call, where each call made its own (issue
 * 31 item 2: three a message that SMTP stores).
 */
import { describe, expect, it, vi } from 'vitest';
import { openStore } from './store.ts';

function storeWithTable() {
  const store = openStore();
  store.db.exec('CREATE TEMP TABLE notes (text TEXT NOT NULL)');
  const add = (text: string) => store.db.prepare('INSERT INTO notes VALUES (?)').run(text);
  const notes = () => store.db.prepare('SELECT text FROM notes ORDER BY rowid').pluck().all();
  return { store, add, notes };
}

describe('Store.transaction', () => {
  it('returns what the work returns and writes all of it', () => {
    const { store, add, notes } = storeWithTable();
    expect(store.transaction(() => (add('a'), add('b'), 7))).toBe(7);
    expect(notes()).toEqual(['a', 'b']);
    store.close();
  });

  it('writes none of the work that throws, and rethrows its error', () => {
    const { store, add, notes } = storeWithTable();
    const failure = new Error('no');
    expect(() =>
      store.transaction(() => {
        add('a');
        throw failure;
      }),
    ).toThrow(failure);
    expect(notes()).toEqual([]);
    expect(store.db.inTransaction).toBe(false);
    store.close();
  });

  it('undoes only a nested transaction that throws; the outer one keeps the rest', () => {
    const { store, add, notes } = storeWithTable();
    store.transaction(() => {
      add('outer');
      expect(() =>
        store.transaction(() => {
          add('inner');
          throw new Error('inner fails');
        }),
      ).toThrow('inner fails');
      store.transaction(() => add('second inner'));
    });
    expect(notes()).toEqual(['outer', 'second inner']);
    store.close();
  });

  it('makes no better-sqlite3 transaction function per call', () => {
    const { store, add } = storeWithTable();
    const made = vi.spyOn(store.db, 'transaction');
    for (let i = 0; i < 3; i += 1) store.transaction(() => store.transaction(() => add(`${i}`)));
    expect(made).not.toHaveBeenCalled();
    store.close();
  });
});
