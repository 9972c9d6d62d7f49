import type Database from 'better-sqlite3';

/**
 * Prepared statements by SQL text, prepared once per database: preparing costs far more than
 * running, and the list query's SQL takes only a few shapes.
 */
export class Statements {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let statement = this.cache.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }
}
