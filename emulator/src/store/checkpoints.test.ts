import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BACKSTOP_PAGES,
  WalCheckpoints,
  type CheckpointResult,
  type SyncWal,
} from './checkpoints.ts';
import { openDatabase } from './database.ts';
import { openStore } from './store.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-checkpoints-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let files = 0;
/** A --db file as the emulator opens it (held exclusively, WAL), with one small table. */
function heldFile(): { db: Database.Database; path: string } {
  const path = join(scratch, `db${(files += 1)}.db`);
  const db = openDatabase(path);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER); INSERT INTO t VALUES (1, 0)');
  return { db, path };
}

/**
 * How many times the WAL has been started again after a checkpoint, by any checkpoint (SQLite's
 * automatic ones included): the checkpoint sequence number of the WAL header (bytes 12-15),
 * which SQLite increments each time it writes the WAL from its start again.
 */
function walRestarts(path: string): number {
  const fd = openSync(`${path}-wal`, 'r');
  try {
    const header = Buffer.alloc(32);
    return readSync(fd, header, 0, 32, 0) < 32 ? 0 : header.readUInt32BE(12);
  } finally {
    closeSync(fd);
  }
}

/** Ticks by hand, flushes the WAL only when told: nothing depends on time. */
function handDriven() {
  const flushes: (() => void)[] = [];
  const syncWal: SyncWal = (done) => flushes.push(done);
  const checkpoints: CheckpointResult[] = [];
  return {
    flushes,
    checkpoints,
    options: {
      ticker: () => () => {},
      syncWal,
      onCheckpoint: (result: CheckpointResult) => checkpoints.push(result),
    },
    /** Ends every flush started so far. */
    flushAll: () => flushes.splice(0).forEach((done) => done()),
  };
}

/** One write transaction that rewrites the same page: one WAL frame. */
const writeOnce = (db: Database.Database) => db.prepare('UPDATE t SET x = x + 1').run();

describe('WAL checkpoints of a --db file', () => {
  it('checkpoints nothing itself while every tick sees writes; SQLite checkpoints once per BACKSTOP_PAGES frames', () => {
    const { db, path } = heldFile();
    const hand = handDriven();
    const checkpoints = new WalCheckpoints(db, hand.options);
    const frames = 3 * BACKSTOP_PAGES;
    const restartsBefore = walRestarts(path);
    for (let n = 0; n < frames; n += 1) {
      writeOnce(db);
      if (n % 50 === 49) {
        checkpoints.tick();
        hand.flushAll();
      }
    }
    expect(checkpoints.counts.checkpoints).toBe(0);
    expect(hand.checkpoints).toEqual([]);
    // Each tick saw writes and flushed them: a backstop checkpoint finds the WAL on disk.
    expect(checkpoints.counts.syncs).toBe(frames / 50);
    // SQLite's default bound (1,000 pages) would have checkpointed 3 * BACKSTOP_PAGES / 1,000 times.
    expect(walRestarts(path) - restartsBefore).toBeLessThanOrEqual(frames / BACKSTOP_PAGES);
    checkpoints.stop();
    db.close();
  });

  it('once a pause follows writes, flushes the WAL first, then checkpoints it down to nothing', () => {
    const { db, path } = heldFile();
    const hand = handDriven();
    const checkpoints = new WalCheckpoints(db, { ...hand.options, idleTicks: 3 });
    for (let n = 0; n < 20; n += 1) writeOnce(db);
    checkpoints.tick(); // saw writes: a flush
    expect(hand.flushes).toHaveLength(1);
    checkpoints.tick();
    checkpoints.tick(); // two quiet ticks of three, and the flush still running
    hand.flushAll();
    checkpoints.tick();
    checkpoints.tick(); // the third quiet tick: the flush covered every write, so no other
    expect(hand.flushes).toHaveLength(0);
    expect(hand.checkpoints).toHaveLength(1);
    const [result] = hand.checkpoints;
    expect(result?.log).toBeGreaterThanOrEqual(20);
    expect(result?.checkpointed).toBe(result?.log);
    expect(statSync(`${path}-wal`).size).toBe(0);
    // Nothing written since: later pauses checkpoint nothing again.
    for (let n = 0; n < 10; n += 1) checkpoints.tick();
    expect(hand.checkpoints).toHaveLength(1);
    checkpoints.stop();
    db.close();
  });

  it('checkpoints only once the flush has ended, and not at all if a write came during it', () => {
    const { db } = heldFile();
    const hand = handDriven();
    const checkpoints = new WalCheckpoints(db, { ...hand.options, idleTicks: 1 });
    checkpoints.tick(); // the first pause: what opening wrote is flushed, then checkpointed
    expect(hand.flushes).toHaveLength(1);
    expect(hand.checkpoints).toHaveLength(0);
    hand.flushAll();
    expect(hand.checkpoints).toHaveLength(1);

    writeOnce(db);
    checkpoints.tick(); // writes: flush A
    checkpoints.tick(); // quiet, but A is still running: no checkpoint yet
    expect(hand.checkpoints).toHaveLength(1);
    hand.flushAll();
    checkpoints.tick(); // quiet, and A covered every write: checkpoint at once
    expect(hand.flushes).toHaveLength(0);
    expect(hand.checkpoints).toHaveLength(2);

    writeOnce(db);
    checkpoints.tick(); // writes: flush B
    writeOnce(db);
    checkpoints.tick(); // writes while B runs: B does not cover them
    hand.flushAll();
    checkpoints.tick(); // quiet: flush C for them, the checkpoint to follow it
    expect(hand.flushes).toHaveLength(1);
    writeOnce(db); // ... but a write comes while C runs
    hand.flushAll();
    expect(hand.checkpoints).toHaveLength(2);
    checkpoints.tick(); // writes: flush D
    hand.flushAll();
    checkpoints.tick(); // quiet again: checkpoint
    expect(hand.checkpoints).toHaveLength(3);
    checkpoints.stop();
    db.close();
  });

  it('flushes with a real fdatasync and checkpoints after a pause, and the file stays held', async () => {
    const { db, path } = heldFile();
    let checkpointed: (result: CheckpointResult) => void = () => {};
    const done = new Promise<CheckpointResult>((resolve) => (checkpointed = resolve));
    let tick: () => void = () => {};
    const checkpoints = new WalCheckpoints(db, {
      ticker: (t) => ((tick = t), () => {}),
      idleTicks: 1,
      onCheckpoint: (result) => checkpointed(result),
    });
    for (let n = 0; n < 100; n += 1) writeOnce(db);
    tick(); // writes: a real flush on the thread pool
    await new Promise((resolve) => setTimeout(resolve, 50));
    while (checkpoints.counts.checkpoints === 0) {
      tick();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await done).log).toBeGreaterThanOrEqual(100);
    checkpoints.stop();
    // Its descriptor of the WAL closed, the database keeps its exclusive hold.
    expect(() => new Database(path, { timeout: 0 }).prepare('SELECT x FROM t').get()).toThrow(
      expect.objectContaining({ code: 'SQLITE_BUSY' }),
    );
    db.close();
  });

  it('stops by itself once its database is closed', () => {
    const { db } = heldFile();
    const hand = handDriven();
    let stopped = false;
    const checkpoints = new WalCheckpoints(db, {
      ...hand.options,
      ticker: () => () => (stopped = true),
    });
    db.close();
    expect(() => checkpoints.tick()).not.toThrow();
    expect(stopped).toBe(true);
  });

  it('refuses an in-memory database', () => {
    expect(() => new WalCheckpoints(openDatabase(':memory:'))).toThrow(/no WAL/);
  });
});

/**
 * A child process that stores emails one transaction at a time into `path`, in bursts with
 * pauses (so WAL flushes, SQLite's checkpoints and idle checkpoints all happen mid-run), and
 * prints each email's id once its transaction has committed.
 */
const WRITER = `
import { openStore } from './emulator/src/store/store.ts';
import { WalCheckpoints } from './emulator/src/store/checkpoints.ts';
import { storedEmail } from './emulator/src/test-helpers/stored-email.ts';
const store = openStore(process.argv[1]);
new WalCheckpoints(store.db, { tickMs: 2, idleTicks: 2, backstopPages: 40 });
let n = 0;
const burst = () => {
  for (let i = 0; i < 25; i += 1) {
    n += 1;
    const id = 'eml_crash' + n;
    store.emails.insert(storedEmail({
      id, mailbox: 'crash@acme.test', from: { address: 'a@acme.test', name: null },
      to: [{ address: 'crash@acme.test', name: null }], subject: 'crash ' + n,
      text: 'body of email ' + n + ' '.repeat(2000), receivedAt: new Date(1e12 + n).toISOString(),
      messageId: '<crash' + n + '@acme.test>',
    }));
    process.stdout.write(id + '\\n');
  }
  setTimeout(burst, n % 100 === 0 ? 12 : 0);
};
burst();
`;

describe('a --db file killed mid-load', () => {
  it(
    'keeps every email whose transaction committed, and stays consistent',
    { timeout: 120_000 },
    async () => {
      const path = join(scratch, 'crash.db');
      const setUp = openStore(path); // migrated, with the mailbox, before the child starts
      setUp.directory.createMailbox({
        address: 'crash@acme.test',
        domain: 'acme.test',
        displayName: null,
      });
      setUp.close();
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', WRITER, path],
        {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const committed: string[] = [];
      let partial = '';
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once('exit', (_code, signal) => resolve(signal)),
      );
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          const lines = (partial + chunk.toString()).split('\n');
          partial = lines.pop() ?? '';
          committed.push(...lines);
          if (committed.length >= 800) resolve();
        });
        child.once('exit', () => resolve());
      });
      child.kill('SIGKILL');
      expect(await exited, stderr).toBe('SIGKILL');
      const store = openStore(path);
      try {
        expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
        const missing = committed.filter((id) => store.emails.get(id) === undefined);
        expect(missing).toEqual([]);
        expect(store.emails.count()).toBeGreaterThanOrEqual(committed.length);
      } finally {
        store.close();
      }
    },
  );
});
