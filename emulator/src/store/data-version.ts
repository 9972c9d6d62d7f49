import type Database from 'better-sqlite3';

/**
 * A value that changes whenever the database may have changed: SQLite's count of rows this
 * connection inserted, updated or deleted, triggers and cascades included. The connection is
 * the data's only writer (an in-memory database is private to it; a file is held with an
 * exclusive lock, `openDatabase`), so anything computed from the data and kept beside this
 * value is current while the value is unchanged, however the data was written (store methods,
 * the control plane, the fixture loader, reset). Any write counts, so a cache keyed by it errs
 * only towards computing again. Reading it touches no table, so it costs no transaction.
 */
export class DataVersion {
  private readonly statement: Database.Statement;

  constructor(db: Database.Database) {
    this.statement = db.prepare('SELECT total_changes()').pluck(true);
  }

  current(): string {
    return String(this.statement.get() as number);
  }
}
