import type Database from 'better-sqlite3';

/** A watched table, and for updates only these columns (all of them when absent). */
export interface WatchedTable {
  table: string;
  updatedColumns?: string[];
}

/** Marks of every TableWrites on a connection, by name, in its temporary schema. */
const MARKS = 'temp.mailtwin_table_writes';

/** The last mark given, by any TableWrites of the process: no two writes are given the same. */
let given = 0;
const nextMark = () => (given += 1);

/**
 * Writes the triggers of each name have seen on a connection, counted in JavaScript: one cell a
 * name and connection, shared by every TableWrites of that name on it (the triggers are made
 * once; the function they call is the last one registered, which counts into the same cell).
 */
const counted = new WeakMap<Database.Database, Map<string, { writes: number }>>();

/**
 * A mark that changes whenever a row of chosen tables is inserted, deleted or (in the chosen
 * columns) updated, however it was written: store methods, cascades, the control plane, reset.
 * Unlike DataVersion, which any write changes (every stored email), it stays put while only
 * other tables are written, so a value derived from those tables alone can be kept across
 * messages (the webhooks that hear of a mailbox's mail, issue 31 item 2).
 *
 * Temporary triggers (this connection's own, never in the database file) set the mark to a
 * value never given before, in the writing transaction: a rollback takes the mark back to what
 * it was with the rows it undoes, and no later write gives that value again, so one mark always
 * stands for one state of the tables.
 */
export class TableWrites {
  private readonly statement: Database.Statement;
  private readonly cell: { writes: number };

  constructor(
    db: Database.Database,
    private readonly name: string,
    watched: readonly WatchedTable[],
  ) {
    if (!/^\w+$/.test(name)) throw new Error(`TableWrites: unusable name ${name}`);
    // Made in a transaction, the triggers would go with its rollback.
    if (db.inTransaction) throw new Error('TableWrites: made inside a transaction');
    const next = 'mailtwin_next_table_write';
    db.function(next, nextMark);
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS mailtwin_table_writes (
      name TEXT PRIMARY KEY, mark INTEGER NOT NULL) WITHOUT ROWID`);
    db.prepare(`INSERT OR IGNORE INTO ${MARKS} (name, mark) VALUES (?, 0)`).run(name);
    let cells = counted.get(db);
    if (cells === undefined) counted.set(db, (cells = new Map()));
    let cell = cells.get(name);
    if (cell === undefined) cells.set(name, (cell = { writes: 0 }));
    const writes = cell;
    const count = `mailtwin_${name}_written`;
    db.function(count, () => {
      writes.writes += 1;
      return null;
    });
    this.cell = cell;
    const set = `SELECT ${count}(); UPDATE ${MARKS} SET mark = ${next}() WHERE name = '${name}';`;
    for (const { table, updatedColumns } of watched) {
      const update =
        updatedColumns === undefined ? 'UPDATE' : `UPDATE OF ${updatedColumns.join(', ')}`;
      for (const [event, suffix] of [
        ['INSERT', 'inserted'],
        ['DELETE', 'deleted'],
        [update, 'updated'],
      ] as const) {
        db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS mailtwin_${name}_${table}_${suffix}
          AFTER ${event} ON main.${table} BEGIN ${set} END`);
      }
    }
    this.statement = db.prepare(`SELECT mark FROM ${MARKS} WHERE name = ?`).pluck(true);
  }

  /** The mark now: equal to an earlier reading only if none of the watched rows changed since. */
  current(): number {
    return this.statement.get(this.name) as number;
  }

  /**
   * How many watched rows were written on this connection, read without a query (a request
   * reads it: issue 31 item 1). Equal to an earlier reading only if none was written since; a
   * write later rolled back still counts, so a value kept against it errs only towards being
   * computed again.
   */
  writesSeen(): number {
    return this.cell.writes;
  }
}
