/** The emulator's time: the real clock plus an offset the control plane can move (never back). */
export interface Clock {
  now(): Date;
}

export class ControllableClock implements Clock {
  private offsetMs = 0;

  constructor(private readonly realNow: () => number = Date.now) {}

  now(): Date {
    return new Date(this.realNow() + this.offsetMs);
  }

  /** Moves time forward by `ms` (≥ 0), e.g. to run a retry schedule without sleeping. */
  advance(ms: number): Date {
    if (!(ms >= 0)) throw new RangeError('the clock only moves forward');
    this.offsetMs += ms;
    return this.now();
  }

  /** Sets the current time; it may not move backwards, so stored order stays meaningful. */
  set(to: Date): Date {
    const delta = to.getTime() - this.now().getTime();
    if (delta < 0) throw new RangeError('the clock only moves forward');
    return this.advance(delta);
  }

  get offset(): number {
    return this.offsetMs;
  }
}
