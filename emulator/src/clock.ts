/** The emulator's time: the real clock plus an offset the control plane can move (never back). */
export interface Clock {
  now(): Date;
}

/** What a clock keeps between runs: its offset and the latest instant it showed (ms). */
export interface ClockState {
  offsetMs: number;
  latestMs: number;
}

/**
 * Where a clock keeps its state between runs (for `mailtwin serve --db`, the store's settings),
 * so a restart does not move time back: spec/control.yaml says the clock only moves forward.
 */
export interface ClockKeeper {
  load(): ClockState | undefined;
  save(state: ClockState): void;
}

export class ControllableClock implements Clock {
  private offsetMs = 0;
  /** The latest instant kept so far; a later save never lowers it. */
  private latestMs = -Infinity;

  /**
   * With a keeper, the clock resumes its kept offset, and more if need be so that it is not
   * behind the latest instant it is known to have shown (the real clock may have been set back
   * between runs, or the data moved to another machine).
   */
  constructor(
    private readonly realNow: () => number = Date.now,
    private readonly keeper?: ClockKeeper,
  ) {
    const kept = keeper?.load();
    if (kept !== undefined) {
      this.offsetMs = Math.max(0, kept.offsetMs, kept.latestMs - realNow());
      this.latestMs = kept.latestMs;
    }
  }

  now(): Date {
    return new Date(this.realNow() + this.offsetMs);
  }

  /** Moves time forward by `ms` (≥ 0), e.g. to run a retry schedule without sleeping. */
  advance(ms: number): Date {
    if (!(ms >= 0)) throw new RangeError('the clock only moves forward');
    const offsetMs = this.offsetMs + ms;
    // Kept before it takes effect: a move that cannot be kept is not made.
    this.keep(offsetMs);
    this.offsetMs = offsetMs;
    return this.now();
  }

  /** Sets the current time; it may not move backwards, so stored order stays meaningful. */
  set(to: Date): Date {
    const delta = to.getTime() - this.now().getTime();
    if (delta < 0) throw new RangeError('the clock only moves forward');
    return this.advance(delta);
  }

  /** Keeps the current instant too (at a clean stop), so a restart does not start before it. */
  checkpoint(): void {
    this.keep(this.offsetMs);
  }

  private keep(offsetMs: number): void {
    if (this.keeper === undefined) return;
    const latestMs = Math.max(this.latestMs, this.realNow() + offsetMs);
    this.keeper.save({ offsetMs, latestMs });
    this.latestMs = latestMs;
  }

  get offset(): number {
    return this.offsetMs;
  }
}
