import { ApiError } from '../errors.ts';
import type { EmulatorEvent, EmulatorEvents } from '../events.ts';

/** D-71: how long a wait holds when `timeoutMs` is not given, and the most it may ask. */
export const DEFAULT_WAIT_MS = 5_000;
export const MAX_WAIT_MS = 120_000;

/**
 * Long polls (issue 30 item 2, D-71): answers as soon as `find` returns something, looking
 * again only when the event bus reports a change that may matter (`relevant`), never on a
 * timer. The one timer is the deadline, which rejects with 408 `wait_timeout`. A client that
 * goes away (`signal`) or an emulator that stops ends the wait too.
 */
export function waitFor<T>(
  /** The emulator's event bus (AppDeps.events). */
  events: EmulatorEvents,
  find: () => T | undefined,
  relevant: (event: EmulatorEvent) => boolean,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<T> {
  const found = find();
  if (found !== undefined) return Promise.resolve(found);
  return new Promise<T>((resolve, reject) => {
    let unsubscribe = () => {};
    const end = () => {
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
    };
    const timer = setTimeout(() => {
      end();
      reject(
        new ApiError(
          'wait_timeout',
          `Nothing matched within ${timeoutMs} ms; wait again or widen the filters.`,
          'timeoutMs',
        ),
      );
    }, timeoutMs);
    const onAbort = () => {
      end();
      reject(new ApiError('service_unavailable', 'The client went away.'));
    };
    signal?.addEventListener('abort', onAbort);
    unsubscribe = events.subscribe((event) => {
      if (event.type === 'emulator.stopping') {
        end();
        reject(new ApiError('service_unavailable', 'The emulator is stopping.'));
        return;
      }
      if (!relevant(event)) return;
      let match: T | undefined;
      try {
        match = find();
      } catch (error) {
        end();
        reject(error);
        return;
      }
      if (match === undefined) return;
      end();
      resolve(match);
    });
  });
}

/** `timeoutMs` of a wait: an integer from 0 to MAX_WAIT_MS, DEFAULT_WAIT_MS when absent. */
export function parseWaitTimeout(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_WAIT_MS;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) > MAX_WAIT_MS) {
    throw new ApiError(
      'invalid_field',
      `timeoutMs must be an integer from 0 to ${MAX_WAIT_MS}.`,
      'timeoutMs',
    );
  }
  return Number(raw);
}
