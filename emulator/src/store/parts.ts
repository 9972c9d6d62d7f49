/**
 * Large values written in parts (migration 012, issue 27 item 1): a value bound whole to one
 * statement is copied twice more by better-sqlite3 and SQLite (the bound copy, then the record),
 * each time into memory of its size that the process faults in afresh (about 25 ms of CPU for
 * 4.5 MB on these machines); parts of PART_BYTES are copied through memory the allocator keeps
 * and reuses, so writing a part costs what storing its bytes costs, and a caller can spread the
 * parts of megabytes over turns of the event loop.
 */
export const PART_BYTES = 64 * 1024;

/** The parts of `bytes`, in order, each at most PART_BYTES: views of the same memory, no copies. */
export function partsOf(bytes: Uint8Array): Buffer[] {
  const whole = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Buffer[] = [];
  for (let at = 0; at < whole.length; at += PART_BYTES)
    parts.push(whole.subarray(at, at + PART_BYTES));
  return parts;
}
