import { closeSync, fdatasync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';

/**
 * SQLite's own checkpoint bound for a --db file, in pages (4 KiB each): the backstop while
 * writes never pause, where SQLite's default is 1,000. The WAL file grows to about 16 MB
 * (4,000 frames of 4,120 bytes) before a checkpoint empties it; `journal_size_limit` cuts it
 * back to that after a bigger transaction, and an idle checkpoint to nothing. Measured on the
 * shared 2-core machine (strace of the server's main thread, issue 31 item 1): over the
 * 10,000-email mix, whose writes rewrite the same pages, a checkpoint costs 2-6 ms once the WAL
 * is flushed (below) whatever the bound, so a bigger bound only makes them rarer; over SMTP
 * ingest of 4,040 messages, whose pages are all new, 4,000 pages took 17 checkpoints where
 * 1,000 took 41-46, the main thread's fsyncs 343 ms in all against 710 ms without this module,
 * and the longest single stall 48 ms of WAL fsync (32 ms at 1,000 pages without this module)
 * on a disk loaded by other work.
 */
export const BACKSTOP_PAGES = 4_000;

/** How often the WAL is looked at, in ms: a tick that saw writes flushes the WAL. */
export const TICK_MS = 100;

/** Quiet ticks after writes (no write at all) before the idle checkpoint: 500 ms. */
export const IDLE_TICKS = 5;

/** Starts calling `tick` every `everyMs`; returns what stops it. */
export type Ticker = (tick: () => void, everyMs: number) => () => void;

/** A real interval that never keeps the process alive. */
export const intervalTicker: Ticker = (tick, everyMs) => {
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return () => clearInterval(timer);
};

/** Flushes the WAL file to disk off the main thread, then calls `done`. */
export type SyncWal = (done: () => void) => void;

/** What `PRAGMA wal_checkpoint` answers: frames in the WAL, and how many were copied back. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export interface WalCheckpointOptions {
  ticker?: Ticker;
  tickMs?: number;
  idleTicks?: number;
  /** Replaces the real fdatasync of the `-wal` file (tests count it, or hold it). */
  syncWal?: SyncWal;
  backstopPages?: number;
  /** Told of every checkpoint this module runs (not of SQLite's automatic ones). */
  onCheckpoint?: (result: CheckpointResult) => void;
}

/**
 * Keeps WAL checkpoints of a --db file off the requests' path. SQLite checkpoints by itself
 * inside the commit that takes the WAL past its bound, on the main thread, so every request
 * queued behind that commit waits: over the 10,000-email mix a checkpoint of ~1,250 frames took
 * 13-20 ms, of which the fsync of the WAL 8-15 ms, the copy of its pages back to the database
 * 0.5-4 ms and the database's fsync about 1 ms (issue 31 item 1).
 *
 * So every tick that saw writes flushes the WAL with fdatasync on libuv's thread pool: when
 * SQLite's automatic checkpoint comes (the backstop, `BACKSTOP_PAGES`), its own fsync of the
 * WAL finds at most a tick of frames to write (the same checkpoint: 2 ms). And once the
 * database has gone `IDLE_TICKS` ticks without a write after writes, the WAL is flushed the same
 * way, then checkpointed and emptied here, so a burst of writes and a pause (a test run, an
 * SMTP batch) is checkpointed in the pause, not in the next request.
 *
 * Durability is unchanged: every sync SQLite does it still does (`synchronous = NORMAL`); the
 * early fdatasync only makes frames already written durable sooner. Checkpointing from a
 * thread of its own would need a second connection, which the file's exclusive hold refuses
 * (`holdExclusively`).
 */
export class WalCheckpoints {
  private readonly changes: Database.Statement;
  private readonly stopTicker: () => void;
  private readonly syncWal: SyncWal;
  private readonly idleTicks: number;
  private readonly onCheckpoint: (result: CheckpointResult) => void;
  /** total_changes() at the last tick; at the start of the last flush; at the last checkpoint. */
  private seen: number;
  private syncedAt = -1;
  private checkpointedAt = -1; // what opening wrote is checkpointed at the first pause too
  private quietTicks = 0;
  private syncing = false;
  private walFd: number | null = null;
  private stopped = false;
  /** Flushes started and checkpoints run by this module. */
  readonly counts = { syncs: 0, checkpoints: 0 };

  constructor(
    private readonly db: Database.Database,
    {
      ticker = intervalTicker,
      tickMs = TICK_MS,
      idleTicks = IDLE_TICKS,
      syncWal,
      backstopPages = BACKSTOP_PAGES,
      onCheckpoint = () => {},
    }: WalCheckpointOptions = {},
  ) {
    if (db.memory) throw new Error('WalCheckpoints: an in-memory database has no WAL');
    db.pragma(`wal_autocheckpoint = ${backstopPages}`);
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.pragma(`journal_size_limit = ${backstopPages * (pageSize + 24)}`);
    this.changes = db.prepare('SELECT total_changes()').pluck(true);
    this.seen = this.changesNow();
    this.idleTicks = idleTicks;
    this.syncWal = syncWal ?? ((done) => this.fdatasyncWal(done));
    this.onCheckpoint = onCheckpoint;
    this.stopTicker = ticker(() => this.tick(), tickMs);
  }

  /** One look at the database: flush the WAL after writes, checkpoint after a pause. */
  tick(): void {
    if (this.stopped) return;
    if (!this.db.open) return this.stop();
    if (this.db.inTransaction) return;
    const changes = this.changesNow();
    if (changes !== this.seen) {
      this.seen = changes;
      this.quietTicks = 0;
      this.sync(changes, () => {});
      return;
    }
    if (changes === this.checkpointedAt) return;
    this.quietTicks += 1;
    if (this.quietTicks < this.idleTicks || this.syncing) return; // a flush ends first
    const checkpointIfStillQuiet = () => {
      if (this.db.open && !this.db.inTransaction && this.changesNow() === changes)
        this.checkpoint(changes);
    };
    if (this.syncedAt === changes) checkpointIfStillQuiet();
    else this.sync(changes, checkpointIfStillQuiet);
  }

  /** Stops ticking and lets go of the WAL file; the database stays open. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopTicker();
    if (!this.syncing) this.closeWal(); // else once the flush in progress is over
  }

  private changesNow(): number {
    return this.changes.get() as number;
  }

  private sync(changes: number, then: () => void): void {
    if (this.syncing) return;
    this.syncing = true;
    this.counts.syncs += 1;
    this.syncedAt = changes;
    this.syncWal(() => {
      this.syncing = false;
      if (this.stopped) this.closeWal();
      else then();
    });
  }

  private checkpoint(changes: number): void {
    const [result] = this.db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
    // Every frame is back in the database now (no other connection reads the file, so none is
    // left behind): TRUNCATE has nothing to copy, and gives the WAL's disk space back at once.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.checkpointedAt = changes;
    this.counts.checkpoints += 1;
    if (result !== undefined) this.onCheckpoint(result);
  }

  private closeWal(): void {
    if (this.walFd !== null) closeSync(this.walFd);
    this.walFd = null;
  }

  /** fdatasync of the `-wal` file through a descriptor of our own, on libuv's thread pool. */
  private fdatasyncWal(done: () => void): void {
    if (this.walFd === null) {
      try {
        // Read-only: it never writes. SQLite takes no POSIX lock on the WAL file (its locks are
        // on the database file), so closing this descriptor releases none of them; the
        // database file itself is never opened here for that reason.
        this.walFd = openSync(`${this.db.name}-wal`, 'r');
      } catch {
        done(); // no WAL file yet
        return;
      }
    }
    fdatasync(this.walFd, () => done());
  }
}
