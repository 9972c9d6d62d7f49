/**
 * Lets the event loop answer what is waiting (every other request) before the caller goes on:
 * the next step of a request that works through megabytes waits for a turn of its own
 * (issue 27 item 1). A `setImmediate`, so I/O that arrived meanwhile is handled first.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
