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
