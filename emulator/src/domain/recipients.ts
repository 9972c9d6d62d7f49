import { ApiError, quoteForMessage } from '../errors.ts';
import { parseAddress } from './addresses.ts';
import type { Address } from './types.ts';

/** §4.3 rule 2, §8: at most 50 combined recipients, every entry counted (D-10). */
export const MAX_RECIPIENTS = 50;

/** Parses one address field, or refuses it with 400 invalid_address naming the field. */
export function requireAddress(value: string, field: string): Address {
  const address = parseAddress(value);
  if (address === undefined)
    throw new ApiError(
      'invalid_address',
      `${field} is not an email address: ${quoteForMessage(value)}`,
      field,
    );
  return address;
}

export function requireAddresses(values: string[] | undefined, field: string): Address[] {
  return (values ?? []).map((value, i) => requireAddress(value, `${field}[${i}]`));
}

/**
 * Counts to, cc and bcc in that order and refuses the request at the list where the count
 * passes 50 (D-10): a client can tell which list to shorten.
 */
export function checkRecipientCount(lists: [field: string, count: number][]): void {
  let total = 0;
  for (const [field, count] of lists) {
    total += count;
    if (total > MAX_RECIPIENTS) {
      const all = lists.reduce((sum, [, n]) => sum + n, 0);
      throw new ApiError(
        'too_many_recipients',
        `At most ${MAX_RECIPIENTS} combined recipients (to, cc, bcc); got ${all}.`,
        field,
      );
    }
  }
}
