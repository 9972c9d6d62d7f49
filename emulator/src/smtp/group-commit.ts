/** Runs `work` in one transaction of the store: all of it is written, or none (Store.transaction). */
export type Transaction = <T>(work: () => T) => T;

interface Queued {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * How many turns of the event loop a group waits at most for writes still being prepared
 * (`GroupCommit.after`): a small message takes mailparser about 20 turns (its `setImmediate`
 * hops), so a message whose parse began just before the group was asked for still joins it,
 * and a parse that does not end delays the others by this many turns only.
 */
export const MAX_WAIT_TURNS = 64;

/**
 * Group commit (issue 31 item 2): writes asked for in the same turn of the event loop (SMTP
 * messages whose DATA ended together) are made in one transaction, committed once, instead of
 * one transaction each. Each write still runs as it would alone, nested in that transaction
 * (the store's own transactions become savepoints): one that throws is rejected with its error
 * and leaves the others to be written. Every promise settles only after the commit, so a
 * message is acknowledged only once it is stored; if the commit itself fails, nothing of the
 * group was written and every write of it is rejected.
 *
 * A group also waits, for at most `maxWaitTurns` turns, for the writes announced with `after`
 * whose preparation (a message's parse) is still under way: the messages of concurrent
 * connections are then parsed, stored and acknowledged together, and their clients send their
 * next ones together. Stored one or two at a time between other messages' parses, an SMTP
 * message cost the store about 0.5 ms of CPU, against about 0.2 ms in groups of ten: parsing
 * in between left the database's pages cold (issue 31 item 2, in-process measurement).
 */
export class GroupCommit {
  private queue: Queued[] = [];
  /** Writes announced by `after` whose preparation has not settled yet. */
  private preparing = 0;
  private scheduled = false;
  /** Turns the group in the queue has waited so far for writes being prepared. */
  private waited = 0;

  constructor(
    private readonly transaction: Transaction,
    private readonly maxWaitTurns = MAX_WAIT_TURNS,
  ) {}

  /** Resolves with what `work` returned, once the transaction that ran it is committed. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as Queued['resolve'], reject });
      this.schedule();
    });
  }

  /**
   * `run(() => work(value))` once `prepared` resolves with `value`; until it settles, a group
   * asked for meanwhile waits for it (see the class). Rejected with `prepared`'s error, having
   * written nothing.
   */
  async after<P, T>(prepared: Promise<P>, work: (value: P) => T): Promise<T> {
    this.preparing += 1;
    let value: P;
    try {
      value = await prepared;
    } finally {
      this.preparing -= 1;
    }
    return this.run(() => work(value));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  /** Commits the group, or waits one more turn for writes being prepared. */
  private turn(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    if (this.preparing > 0 && this.waited < this.maxWaitTurns) {
      this.waited += 1;
      return this.schedule();
    }
    this.waited = 0;
    this.commit();
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
