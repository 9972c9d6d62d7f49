import { describe, expect, it } from 'vitest';
import { ControllableClock, type ClockKeeper, type ClockState } from './clock.ts';

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const HOUR = 3_600_000;

/** A keeper in memory, standing in for the store's settings across a restart. */
function memoryKeeper(): ClockKeeper & { state: ClockState | undefined } {
  return {
    state: undefined,
    load() {
      return this.state;
    },
    save(state) {
      this.state = { ...state };
    },
  };
}

describe('ControllableClock with a keeper (a restart on the same --db)', () => {
  it('resumes the offset it was moved by, so time does not move back across a restart', () => {
    const keeper = memoryKeeper();
    let real = T0;
    const before = new ControllableClock(() => real, keeper);
    before.advance(5 * HOUR);
    before.set(new Date(T0 + 30 * HOUR));
    const shown = before.now().getTime();

    real = T0 + 60_000; // the restart took a minute of real time
    const after = new ControllableClock(() => real, keeper);
    expect(after.offset).toBe(30 * HOUR);
    expect(after.now().getTime()).toBe(shown + 60_000);
  });

  it('starts at the latest instant it showed when the real clock went back between runs', () => {
    const keeper = memoryKeeper();
    let real = T0;
    const before = new ControllableClock(() => real, keeper);
    before.advance(HOUR);
    real = T0 + 10 * 60_000;
    before.checkpoint(); // a clean stop keeps the instant too
    const latest = before.now().getTime();

    real = T0 - 24 * HOUR; // the machine's clock was set back a day
    const after = new ControllableClock(() => real, keeper);
    expect(after.now().getTime()).toBe(latest);
    expect(after.offset).toBe(latest - real);
  });

  it('never lowers the kept latest instant, even when the real clock goes back while running', () => {
    const keeper = memoryKeeper();
    let real = T0;
    const clock = new ControllableClock(() => real, keeper);
    clock.advance(HOUR);
    real = T0 - 2 * HOUR;
    clock.advance(0);
    expect(keeper.state).toEqual({ offsetMs: HOUR, latestMs: T0 + HOUR });
  });

  it('does not move when its state cannot be kept', () => {
    const clock = new ControllableClock(() => T0, {
      load: () => undefined,
      save: () => {
        throw new Error('disk full');
      },
    });
    expect(() => clock.advance(HOUR)).toThrow('disk full');
    expect(clock.offset).toBe(0);
    expect(clock.now().getTime()).toBe(T0);
  });

  it('starts at offset 0 with nothing kept, and without a keeper keeps nothing', () => {
    expect(new ControllableClock(() => T0, memoryKeeper()).offset).toBe(0);
    const alone = new ControllableClock(() => T0);
    alone.advance(HOUR);
    alone.checkpoint();
    expect(alone.now().getTime()).toBe(T0 + HOUR);
  });
});
