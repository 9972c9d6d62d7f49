// Group commit of SMTP deliveries (issue 31 item 2): messages whose DATA ends in the same turn of
// the event loop, or that are parsed together, are stored in one transaction, and none is
// acknowledged before its commit.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/database.ts';
import { GroupCommit, MAX_WAIT_TURNS, type Transaction } from './group-commit.ts';

/** Resolves after `n` turns of the event loop (each a `setImmediate`). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** A real transaction over a table of names, counting the transactions begun. */
function names() {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE names (name TEXT NOT NULL UNIQUE)');
  let transactions = 0;
  let failCommit = false;
  const transaction: Transaction = (work) => {
    const outermost = !db.inTransaction;
    if (outermost) transactions += 1;
    return db.transaction(() => {
      const result = work();
      if (failCommit && outermost) throw new Error('disk I/O error'); // as a failed COMMIT
      return result;
    })();
  };
  const add = (name: string) =>
    transaction(() => db.prepare('INSERT INTO names (name) VALUES (?)').run(name).changes);
  const stored = () =>
    (db.prepare('SELECT name FROM names ORDER BY name').all() as { name: string }[]).map(
      (r) => r.name,
    );
  return {
    transaction,
    add,
    stored,
    transactions: () => transactions,
    failNextCommits: () => (failCommit = true),
  };
}

describe('group commit', () => {
  it('writes what is asked in the same turn in one transaction, each answered with its own result', async () => {
    const store = names();
    const commits = new GroupCommit(store.transaction);
    const results = await Promise.all(['a', 'b', 'c'].map((n) => commits.run(() => store.add(n))));
    expect(results).toEqual([1, 1, 1]);
    expect(store.stored()).toEqual(['a', 'b', 'c']);
    expect(store.transactions()).toBe(1);
  });

  it('answers nothing before the commit: a write asked for is not settled in the same turn', async () => {
    const store = names();
    const commits = new GroupCommit(store.transaction);
    let settled = false;
    const done = commits.run(() => store.add('a')).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(store.stored()).toEqual([]);
    await done;
    expect(settled).toBe(true);
  });

  it('rejects only the write that throws, with its error; the others of the group are written', async () => {
    const store = names();
    const commits = new GroupCommit(store.transaction);
    const outcomes = await Promise.allSettled(
      ['a', 'a', 'b'].map((n) => commits.run(() => store.add(n))),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(store.stored()).toEqual(['a', 'b']);
    expect(store.transactions()).toBe(1);
  });

  it('rejects every write of a group whose commit fails, and none of it is stored', async () => {
    const store = names();
    const commits = new GroupCommit(store.transaction);
    store.failNextCommits();
    const outcomes = await Promise.allSettled(
      ['a', 'b'].map((n) => commits.run(() => store.add(n))),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(store.stored()).toEqual([]);
  });

  it('starts a new group for writes asked after a commit', async () => {
    const store = names();
    const commits = new GroupCommit(store.transaction);
    await commits.run(() => store.add('a'));
    await commits.run(() => store.add('b'));
    expect(store.transactions()).toBe(2);
    expect(store.stored()).toEqual(['a', 'b']);
  });

  it('waits for a write still being prepared, and writes both in one transaction', async () => {
    const store = names();
    const commits = new GroupCommit(store.transaction);
    const results = await Promise.all([
      commits.after(Promise.resolve('a'), (n) => store.add(n)),
      commits.after(
        turns(10).then(() => 'b'),
        (n) => store.add(n),
      ),
    ]);
    expect(results).toEqual([1, 1]);
    expect(store.stored()).toEqual(['a', 'b']);
    expect(store.transactions()).toBe(1);
  });

  it('waits at most maxWaitTurns turns for a preparation that does not end', async () => {
    const store = names();
    const commits = new GroupCommit(store.transaction, 5);
    void commits.after(new Promise<string>(() => {}), (n) => store.add(n));
    let committed = false;
    const done = commits.run(() => store.add('a')).then(() => (committed = true));
    let waited = 0;
    while (!committed && waited < 100) {
      await turns(1);
      waited += 1;
    }
    await done;
    expect(store.stored()).toEqual(['a']);
    expect(waited).toBeGreaterThan(5);
    expect(waited).toBeLessThanOrEqual(5 + 2);
    expect(MAX_WAIT_TURNS).toBeGreaterThanOrEqual(20); // a small message's parse: ~20 turns
  });

  it('rejects a write whose preparation fails, writing nothing, and commits the group without it', async () => {
    const store = names();
    const commits = new GroupCommit(store.transaction);
    const outcomes = await Promise.allSettled([
      commits.after(Promise.resolve('a'), (n) => store.add(n)),
      commits.after(
        turns(3).then(() => Promise.reject(new Error('unparseable'))),
        (n: string) => store.add(n),
      ),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/unparseable/);
    expect(store.stored()).toEqual(['a']);
    expect(store.transactions()).toBe(1);
  });
});
