import { randomBytes, randomUUID } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Where identifiers and secrets come from; injected so tests can make them predictable. */
export interface Ids {
  /** An opaque email id: 10 characters of time, 16 random (ULID-shaped, sortable by time). */
  emailId(now: Date): string;
  /** A UUID-shaped id (uploads and message attachments, §2.4). */
  uuid(): string;
  /** A short random id with a prefix, e.g. `own_…`, `key_…`. */
  prefixed(prefix: string): string;
  /** `length` characters of base62 from a cryptographic source. */
  secret(length: number): string;
}

function encodeTime(ms: number): string {
  let out = '';
  let value = ms;
  for (let i = 0; i < 10; i += 1) {
    out = CROCKFORD[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/**
 * Cryptographic random bytes drawn from a pool refilled 4 KiB at a time: a send makes several
 * ids, and one `randomBytes` call (a system call and a buffer) per id was a visible part of it.
 * Each byte is handed out once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let taken = 0;

function poolBytes(count: number): Uint8Array {
  if (taken + count > pool.length) {
    pool = randomBytes(Math.max(POOL_BYTES, count));
    taken = 0;
  }
  taken += count;
  return pool.subarray(taken - count, taken);
}

function randomString(alphabet: string, length: number): string {
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of poolBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

export const cryptoIds: Ids = {
  emailId: (now) => encodeTime(now.getTime()) + randomString(CROCKFORD, 16),
  uuid: () => randomUUID(),
  prefixed: (prefix) => `${prefix}_${randomString(BASE62, 16)}`,
  secret: (length) => randomString(BASE62, length),
};
