import type Database from 'better-sqlite3';

/**
 * A value that changes whenever the database may have changed: SQLite's count of rows this
 * connection inserted, updated or deleted (triggers and cascades included) with its
 * `data_version`, which moves when another connection commits to the same file. Anything
 * computed from the data and kept beside this value is current while the value is unchanged,
 * however the data was written (store methods, the control plane, the fixture loader, reset).
 * Any write counts, so a cache keyed by it errs only towards computing again.
 */
export class DataVersion {
  private readonly statement: Database.Statement;

  constructor(db: Database.Database) {
    this.statement = db
      .prepare('SELECT total_changes(), (SELECT data_version FROM pragma_data_version)')
      .raw(true);
  }

  current(): string {
    const [changes, version] = this.statement.get() as [number, number];
    return `${changes}:${version}`;
  }
}
