import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * Opens the emulator's database (`:memory:` by default) and applies pending migrations. A file
 * is held with an exclusive lock for as long as it is open: this connection is its only reader
 * and writer, so a second emulator on the same file (which would deliver the same webhooks
 * twice and race the outbox) is refused with SQLITE_BUSY, and no statement pays for shared
 * locks. Set before WAL, so SQLite keeps the WAL index in this process, not in a -shm file.
 */
export function openDatabase(path = ':memory:'): Database.Database {
  const db = new Database(path);
  db.pragma('foreign_keys = ON');
  if (path !== ':memory:') {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  migrate(db);
  return db;
}

/**
 * Applies `migrations/NNN_name.sql` in number order, each in its own transaction, recording
 * each in `schema_migrations` so a file database is upgraded in place.
 */
export function migrate(db: Database.Database): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map(
      (r) => r.version,
    ),
  );
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const ran: string[] = [];
  for (const file of files) {
    const version = Number(file.slice(0, 3));
    if (applied.has(version)) continue;
    const sql = readFileSync(`${MIGRATIONS_DIR}${file}`, 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        version,
        file,
        new Date().toISOString(),
      );
    })();
    ran.push(file);
  }
  return ran;
}
