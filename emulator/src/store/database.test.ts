import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { holdExclusively, openDatabase } from './database.ts';

const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-database-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A WAL file holding one row (as an emulator leaves it), written and closed by its own connection. */
function fileWithData(name: string): string {
  const path = join(scratch, name);
  const writer = new Database(path);
  writer.pragma('journal_mode = WAL');
  writer.exec("CREATE TABLE t (x); INSERT INTO t VALUES ('kept')");
  writer.close();
  return path;
}

const readByAnother = (path: string) => {
  const other = new Database(path, { timeout: 0 });
  try {
    return other.prepare('SELECT x FROM t').pluck().get();
  } finally {
    other.close();
  }
};

describe('a --db file is held by one connection', () => {
  it('shuts out every other connection from the moment it is held, before any write of its own', () => {
    const path = fileWithData('held.db');
    const db = new Database(path);
    holdExclusively(db);
    expect(db.prepare('SELECT x FROM t').pluck().get()).toBe('kept');
    expect(() => readByAnother(path)).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    db.close();
    expect(readByAnother(path)).toBe('kept');
  });

  it('refuses a second openDatabase of the same file once the wait for it is over', () => {
    const path = join(scratch, 'emulator.db');
    const first = openDatabase(path);
    expect(() => openDatabase(path, { lockWaitMs: 0 })).toThrow(
      expect.objectContaining({ code: 'SQLITE_BUSY' }),
    );
    first.close();
    openDatabase(path, { lockWaitMs: 0 }).close();
  });
});

/** Bytes this process has read through read(2) and friends so far (Linux). */
function bytesRead(): number {
  const io = readFileSync('/proc/self/io', 'utf8');
  return Number(/^rchar: (\d+)$/m.exec(io)?.[1]);
}

describe('the page cache', () => {
  it.skipIf(!existsSync('/proc/self/io'))(
    'keeps a 30 MB file in memory once read: reading it again reads nothing from the file',
    () => {
      const path = join(scratch, 'cache.db');
      const writer = openDatabase(path);
      writer.exec('CREATE TABLE filler (x TEXT)');
      const insert = writer.prepare("INSERT INTO filler VALUES (printf('%.1000c', 'x'))");
      writer.transaction(() => {
        for (let n = 0; n < 30_000; n += 1) insert.run();
      })();
      writer.close();
      const db = openDatabase(path);
      const readAll = () => db.prepare('SELECT sum(length(x)) FROM filler').pluck().get();
      expect(readAll()).toBe(30_000_000);
      const before = bytesRead();
      readAll();
      // SQLite's default cache (about 16 MB) read most of the file again.
      expect(bytesRead() - before).toBeLessThan(1_000_000);
      db.close();
    },
  );
});
