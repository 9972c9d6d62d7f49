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

function randomString(alphabet: string, length: number): string {
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
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
