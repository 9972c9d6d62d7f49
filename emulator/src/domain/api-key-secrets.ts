import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * §2.1: a key's secret begins with `sk-`. Ours are `sk-<12-char lookup>_<32-char secret>`: the
 * lookup finds the row without revealing anything, the whole string is hashed (SHA-256; the
 * secret is 190 random bits, so a slow hash adds nothing) and compared in constant time.
 */
export const KEY_PATTERN = /^sk-([A-Za-z0-9]{12})_([A-Za-z0-9]{32})$/;

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest(); // a string is read as UTF-8
}

export function composeKeySecret(lookup: string, random: string): string {
  const secret = `sk-${lookup}_${random}`;
  if (!KEY_PATTERN.test(secret))
    throw new Error('lookup must be 12 and random 32 base62 characters');
  return secret;
}

/** The lookup part of a well-formed secret, or undefined. */
export function lookupOf(secret: string): string | undefined {
  return KEY_PATTERN.exec(secret)?.[1];
}

const DUMMY_HASH = hashSecret('sk-000000000000_00000000000000000000000000000000');

/** Constant-time comparison of a presented secret with a stored hash (a dummy when none). */
export function secretMatches(presented: string, storedHash: Buffer | undefined): boolean {
  const presentedHash = hashSecret(presented);
  const equal = timingSafeEqual(presentedHash, storedHash ?? DUMMY_HASH);
  return equal && storedHash !== undefined;
}
