/**
 * Time a check spends waiting on the target's own pace, which its time budget does not count
 * (issue 28 item 4): mail on its way (`--delivery-timeout` bounds each wait), a webhook
 * delivery, search catching up, the run's own `--max-rps`. A deployment that delivers in
 * seconds is slow, not broken; the budget is for the check's own work and the target's answers.
 *
 * One check runs at a time in a worker, so the count is per worker, reset as each check starts.
 * Waits that overlap (several mailboxes awaited at once) count their wall time once.
 */
let waitedMs = 0;
let open = 0;
let openedAt = 0;

/** Runs `block`, counting its wall time as waiting on the target's pace. */
export async function waitingOnTarget<T>(block: () => Promise<T>): Promise<T> {
  if (open++ === 0) openedAt = performance.now();
  try {
    return await block();
  } finally {
    if (--open === 0) waitedMs += performance.now() - openedAt;
  }
}

/** Milliseconds waited on the target's pace since the last {@link resetWaiting}. */
export function waitedSoFar(): number {
  return waitedMs + (open > 0 ? performance.now() - openedAt : 0);
}

/** Starts a check's count afresh. */
export function resetWaiting(): void {
  waitedMs = 0;
  open = 0;
}
