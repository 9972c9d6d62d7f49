import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ControllableClock } from '../clock.ts';
import { openStore, type Store } from './store.ts';

const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-settings-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const DAY = 86_400_000;

function clockOver(store: Store, realNow: () => number): ControllableClock {
  return new ControllableClock(realNow, {
    load: () => store.settings.readClock(),
    save: (state) => store.settings.writeClock(state),
  });
}

describe('SettingsStore', () => {
  it('keeps the clock offset in a database file across close and reopen', () => {
    const path = join(scratch, 'clock.db');
    const first = openStore(path);
    clockOver(first, () => T0).advance(3 * DAY);
    first.close();

    const second = openStore(path);
    expect(second.settings.readClock()).toEqual({ offsetMs: 3 * DAY, latestMs: T0 + 3 * DAY });
    const clock = clockOver(second, () => T0 + 1000);
    expect(clock.offset).toBe(3 * DAY);
    expect(clock.now().toISOString()).toBe(new Date(T0 + 3 * DAY + 1000).toISOString());
    second.close();
  });

  it('keeps settings through the control plane reset, which does not move the clock back', () => {
    const store = openStore(':memory:');
    store.settings.writeClock({ offsetMs: DAY, latestMs: T0 + DAY });
    store.reset();
    expect(store.settings.readClock()).toEqual({ offsetMs: DAY, latestMs: T0 + DAY });
    store.close();
  });

  it('reads nothing for a clock never kept or a value it cannot read', () => {
    const store = openStore(':memory:');
    expect(store.settings.readClock()).toBeUndefined();
    store.settings.set('clock', '{"offsetMs":"soon"}');
    expect(store.settings.readClock()).toBeUndefined();
    store.settings.set('clock', 'not json');
    expect(store.settings.readClock()).toBeUndefined();
    store.settings.set('other', 'x');
    store.settings.set('other', 'y');
    expect(store.settings.get('other')).toBe('y');
    store.close();
  });
});
