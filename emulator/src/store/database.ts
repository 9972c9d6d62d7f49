import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** How long opening a file waits for another connection to let go of it (better-sqlite3's). */
const DEFAULT_LOCK_WAIT_MS = 5_000;

/**
 * How much of the database SQLite keeps in memory, in KiB: 64 MiB, where its default of about
 * 16 MB held less than half of a 10,000-email --db file (38 MB), so the pages a search or a page
 * of the list reads were read from the file again and again (about 12% of the store's CPU over
 * the bench's 10,000-email mix; issue 31 item 1). Pages are kept only as they are read, so a
 * small database costs no more; with 100,000 emails (about 400 MB) it keeps 48 MiB more than
 * before, within the RSS target of 300 MB.
 */
export const PAGE_CACHE_KIB = 65_536;

/** How a file is opened: how long to wait for a process that holds it. */
export interface OpenOptions {
  lockWaitMs?: number;
}

/**
 * Opens the emulator's database (`:memory:` by default) and applies pending migrations. A file
 * is held exclusively (`holdExclusively`); opening waits up to `lockWaitMs` for a process that
 * holds it to let go, then fails with SQLITE_BUSY.
 */
export function openDatabase(
  path = ':memory:',
  { lockWaitMs = DEFAULT_LOCK_WAIT_MS }: OpenOptions = {},
): Database.Database {
  const db = new Database(path, { timeout: lockWaitMs });
  try {
    db.pragma('foreign_keys = ON');
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    if (path !== ':memory:') holdExclusively(db);
    migrate(db);
  } catch (error) {
    db.close(); // a file another process holds, say: nothing of this connection stays open
    throw error;
  }
  return db;
}

/**
 * Makes `db` its file's only reader and writer for as long as it is open: a second emulator on
 * the same file (which would deliver the same webhooks twice and race the outbox) is refused,
 * and no statement pays for shared locks. Exclusive locking is set before WAL, so SQLite keeps
 * the WAL index in this process rather than in a -shm file. An empty write transaction takes
 * the exclusive lock at once, kept from then on, instead of leaving it to whichever statement
 * happens to come first.
 */
export function holdExclusively(db: Database.Database): void {
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('BEGIN EXCLUSIVE; COMMIT');
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
