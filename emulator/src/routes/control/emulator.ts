import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import type { ControllableClock } from '../../clock.ts';
import { ApiError } from '../../errors.ts';
import { parseTimestampParam } from '../../domain/query-params.ts';
import { readControlBody } from './body.ts';

/** The last instant stored timestamps can hold and still sort as text (4-digit years). */
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

interface MoveClockBody {
  advanceMs?: number;
  set?: string;
}

/** Moves the clock by exactly one of `advanceMs` and `set`; never back, never past year 9999. */
function moveClock(clock: ControllableClock, { advanceMs, set }: MoveClockBody): void {
  if (advanceMs === undefined && set === undefined) {
    throw new ApiError('missing_field', 'Give advanceMs or set.');
  }
  if (advanceMs !== undefined && set !== undefined) {
    throw new ApiError('invalid_field', 'Give advanceMs or set, not both.', 'set');
  }
  if (advanceMs !== undefined) {
    if (clock.now().getTime() + advanceMs > LATEST) {
      throw new ApiError(
        'invalid_field',
        'advanceMs would move the clock past the year 9999.',
        'advanceMs',
      );
    }
    clock.advance(advanceMs);
    return;
  }
  const to = new Date(parseTimestampParam('set', set as string));
  try {
    clock.set(to);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new ApiError('invalid_field', 'set is in the past; the clock only moves forward.', 'set');
  }
}

/** The emulator itself: `/reset` empties it, `/clock` reads and moves its time. */
export function controlEmulatorRoutes({
  deps,
  faults,
  chaos,
  sink,
  dispatcher,
  rateLimiter,
  localDelivery,
}: Services): Hono {
  const app = new Hono();
  const clockView = () => ({ now: deps.clock.now().toISOString(), offsetMs: deps.clock.offset });

  app.post('/reset', (c) => {
    deps.store.reset();
    faults.clear();
    chaos.clear();
    sink.clear();
    localDelivery.clear(); // mail still on its way would land in the emptied emulator
    rateLimiter.clear(); // the counts go, the configured limit stays
    return c.body(null, 204);
  });

  app.get('/clock', (c) => c.json(clockView()));

  // §2.4: every file is stored once; sends, replies and forwards reusing an upload add none.
  app.get('/storage', (c) => {
    const { count, bytes } = deps.store.blobs.stats();
    return c.json({ files: count, bytes });
  });

  app.post('/clock', async (c) => {
    moveClock(deps.clock, await readControlBody<MoveClockBody>(c, 'MoveClockRequest'));
    // Delayed local deliveries that fell due arrive, and retries that fell due (and the new
    // mail's webhooks) are attempted, before answering, so a test can move time and look.
    localDelivery.runDue();
    await dispatcher.runDue();
    return c.json(clockView());
  });

  return app;
}
