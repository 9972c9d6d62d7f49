/**
 * Lets the event loop answer what is waiting (every other request) before the caller goes on:
 * the next step of a request that works through megabytes waits for a turn of its own
 * (issue 27 item 1). Two `setImmediate`s: one, called from an I/O callback (a socket's data, a
 * render thread's answer: the loop's poll phase), runs in the check phase right after it,
 * before the loop polls for I/O again, so a request that arrived meanwhile still waited; the
 * second runs only after the loop has polled once more.
 */
export const nextTurn = (): Promise<void> =>
  new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/** How many parts (store/parts.ts, 64 KiB each) one turn of the event loop writes: 1 MiB. */
export const PARTS_PER_TURN = 16;

/**
 * Calls `write` for every part in order, PARTS_PER_TURN of them a turn, the event loop
 * answering what waits in between (`nextTurn`): megabytes staged in parts (migration 012) hold
 * no turn longer than one mebibyte's writing does (issue 27 item 1).
 */
export async function inTurns<T>(
  parts: readonly T[],
  write: (part: T, index: number) => void,
): Promise<void> {
  for (const [index, part] of parts.entries()) {
    if (index > 0 && index % PARTS_PER_TURN === 0) await nextTurn();
    write(part, index);
  }
}
