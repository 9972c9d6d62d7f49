/**
 * TableWrites: a mark that changes with every write to the watched rows, by any path, and with
 * nothing else; a rollback takes it back, and no later write gives a mark seen before.
 */
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { TableWrites } from './table-writes.ts';

function world() {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  db.exec(`
    CREATE TABLE parents (id TEXT PRIMARY KEY, flag INTEGER NOT NULL DEFAULT 0, note TEXT);
    CREATE TABLE children (parent TEXT NOT NULL REFERENCES parents (id) ON DELETE CASCADE);
    CREATE TABLE others (value TEXT);
    INSERT INTO parents (id) VALUES ('p1');
    INSERT INTO children VALUES ('p1');
  `);
  const writes = new TableWrites(db, 'test', [
    { table: 'parents', updatedColumns: ['flag'] },
    { table: 'children' },
  ]);
  return { db, writes };
}

describe('TableWrites', () => {
  it('changes with an insert, an update of a watched column and a delete', () => {
    const { db, writes } = world();
    const seen = [writes.current()];
    for (const sql of [
      "INSERT INTO parents (id) VALUES ('p2')",
      "UPDATE parents SET flag = 1 WHERE id = 'p2'",
      "INSERT INTO children VALUES ('p2')",
      "DELETE FROM children WHERE parent = 'p2'",
      "DELETE FROM parents WHERE id = 'p2'",
    ]) {
      db.exec(sql);
      expect(seen, sql).not.toContain(writes.current());
      seen.push(writes.current());
    }
  });

  it('stays put while other tables, other columns or no rows are written', () => {
    const { db, writes } = world();
    const before = writes.current();
    db.exec("INSERT INTO others VALUES ('x')");
    db.exec("UPDATE parents SET note = 'n'");
    db.exec("UPDATE parents SET flag = 1 WHERE id = 'none'");
    db.exec("DELETE FROM children WHERE parent = 'none'");
    expect(writes.current()).toBe(before);
  });

  it('changes with rows a cascade deletes', () => {
    const { db } = world();
    const children = new TableWrites(db, 'children_only', [{ table: 'children' }]);
    const before = children.current();
    db.exec("DELETE FROM parents WHERE id = 'p1'");
    expect(children.current()).not.toBe(before);
  });

  it('goes back with a rollback, and never gives a mark seen before', () => {
    const { db, writes } = world();
    const before = writes.current();
    let inside = before;
    expect(() =>
      db.transaction(() => {
        db.exec("INSERT INTO parents (id) VALUES ('p3')");
        inside = writes.current();
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(inside).not.toBe(before);
    expect(writes.current()).toBe(before);
    db.exec("INSERT INTO parents (id) VALUES ('p4')");
    expect([before, inside]).not.toContain(writes.current());
  });

  it('is made only outside a transaction, whose rollback would take its triggers', () => {
    const { db } = world();
    expect(() => db.transaction(() => new TableWrites(db, 'late', []))()).toThrow(
      /inside a transaction/,
    );
  });

  it('counts watched writes without a query, rolled back ones too, and nothing else', () => {
    const { db, writes } = world();
    const queries = vi.spyOn(db, 'prepare');
    const before = writes.writesSeen();
    db.exec("INSERT INTO others VALUES ('x')");
    db.exec("UPDATE parents SET note = 'n'");
    expect(writes.writesSeen()).toBe(before);
    db.exec("UPDATE parents SET flag = 1 WHERE id = 'p1'");
    const updated = writes.writesSeen();
    expect(updated).not.toBe(before);
    expect(() =>
      db.transaction(() => {
        db.exec("INSERT INTO children VALUES ('p1')");
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(writes.writesSeen()).not.toBe(updated);
    expect(queries).not.toHaveBeenCalled();
  });

  it('counts for every TableWrites of one name on a connection, not for another connection', () => {
    const { db, writes } = world();
    const again = new TableWrites(db, 'test', [{ table: 'parents' }]);
    const elsewhere = world();
    const before = [writes.writesSeen(), again.writesSeen(), elsewhere.writes.writesSeen()];
    db.exec("INSERT INTO children VALUES ('p1')");
    expect(writes.writesSeen()).not.toBe(before[0]);
    expect(again.writesSeen()).not.toBe(before[1]);
    expect(elsewhere.writes.writesSeen()).toBe(before[2]);
  });
});
