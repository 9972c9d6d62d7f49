import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * D-24: `{{unsubscribe_url}}` is a per-recipient link of the deployment; opening it suppresses
 * the recipient. The address travels in the token, signed so no one can unsubscribe another.
 */
function signature(key: string, address: string): string {
  // update() reads a string as UTF-8 by default, as Buffer.from does below.
  return createHmac('sha256', key).update(address).digest('base64url').slice(0, 22);
}

export function unsubscribeToken(key: string, address: string): string {
  return `${Buffer.from(address).toString('base64url')}.${signature(key, address)}`;
}

/** The address a token was made for, or undefined when it was not made with this key. */
export function addressOfUnsubscribeToken(key: string, token: string): string | undefined {
  // split() always yields a first part; only the signature can be missing.
  const [encoded, given] = token.split('.') as [string, string?];
  if (given === undefined || !/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined;
  const address = Buffer.from(encoded, 'base64url').toString('utf8');
  const expected = Buffer.from(signature(key, address));
  const presented = Buffer.from(given);
  return presented.length === expected.length && timingSafeEqual(presented, expected)
    ? address
    : undefined;
}
