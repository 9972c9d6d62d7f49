import type Database from 'better-sqlite3';
import { Statements } from './statements.ts';

/** The clock's state as kept: its offset and the latest instant it showed, in milliseconds. */
export interface StoredClock {
  offsetMs: number;
  latestMs: number;
}

const CLOCK = 'clock';

/**
 * Values of the emulator itself, kept with the data (migration 005) so they survive a restart
 * on the same `--db` file. The control plane's reset leaves them: it empties the data, it does
 * not move the clock back.
 */
export class SettingsStore {
  private readonly sql: Statements;

  constructor(db: Database.Database) {
    this.sql = new Statements(db);
  }

  get(name: string): string | undefined {
    const row = this.sql.get('SELECT value FROM settings WHERE name = ?').get(name) as
      { value: string } | undefined;
    return row?.value;
  }

  set(name: string, value: string): void {
    this.sql
      .get(
        'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      )
      .run(name, value);
  }

  /** The value kept under `name`, made and kept by `make` the first time it is asked for. */
  getOrCreate(name: string, make: () => string): string {
    const kept = this.get(name);
    if (kept !== undefined) return kept;
    const made = make();
    this.set(name, made);
    return made;
  }

  /** The clock as last kept, or undefined when it never moved (or the value is unreadable). */
  readClock(): StoredClock | undefined {
    const text = this.get(CLOCK);
    if (text === undefined) return undefined;
    try {
      const { offsetMs, latestMs } = JSON.parse(text) as Partial<StoredClock>;
      if (!Number.isFinite(offsetMs) || !Number.isFinite(latestMs)) return undefined;
      return { offsetMs: offsetMs as number, latestMs: latestMs as number };
    } catch {
      return undefined;
    }
  }

  writeClock(clock: StoredClock): void {
    this.set(CLOCK, JSON.stringify({ offsetMs: clock.offsetMs, latestMs: clock.latestMs }));
  }
}
