/** Runs `work` in one transaction of the store: all of it is written, or none (Store.transaction). */
export type Transaction = <T>(work: () => T) => T;

interface Queued {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit (issue 31 item 2): writes asked for in the same turn of the event loop (SMTP
 * messages whose DATA ended together) are made in one transaction, committed once, instead of
 * one transaction each. Each write still runs as it would alone, nested in that transaction
 * (the store's own transactions become savepoints): one that throws is rejected with its error
 * and leaves the others to be written. Every promise settles only after the commit, so a
 * message is acknowledged only once it is stored; if the commit itself fails, nothing of the
 * group was written and every write of it is rejected.
 */
export class GroupCommit {
  private queue: Queued[] = [];

  constructor(private readonly transaction: Transaction) {}

  /** Resolves with what `work` returned, once the transaction that ran it is committed. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const first = this.queue.push({ work, resolve: resolve as Queued['resolve'], reject }) === 1;
      if (first) setImmediate(() => this.commit());
    });
  }

  private commit(): void {
    const group = this.queue.splice(0);
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.transaction(() => {
        for (const { work } of group) {
          try {
            outcomes.push({ ok: true, value: work() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const { reject } of group) reject(error);
      return;
    }
    group.forEach(({ resolve, reject }, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    });
  }
}
