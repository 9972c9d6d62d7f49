import type Database from 'better-sqlite3';

/**
 * The SQL of every statement `work` runs on `db`'s connection (all, get, run, iterate), in the
 * order they ran, with the data version's `SELECT total_changes()` left out: tests count what
 * a read or a write costs the store by the statements it runs, never by time.
 */
export function statementsRan(db: Database.Database, work: () => void): string[] {
  const ran: string[] = [];
  const statement = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<
    'all' | 'get' | 'run' | 'iterate',
    (...args: unknown[]) => unknown
  >;
  const { all, get, run, iterate } = statement;
  const original = { all, get, run, iterate };
  for (const method of ['all', 'get', 'run', 'iterate'] as const)
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      ran.push(this.source);
      return original[method].apply(this, args);
    };
  try {
    work();
  } finally {
    Object.assign(statement, original);
  }
  return ran.filter((sql) => !sql.startsWith('SELECT total_changes()'));
}
