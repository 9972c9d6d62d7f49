/**
 * What a flag's value must be, checked once for every flag that takes one: an integer in a
 * range, a file name that is not blank, a plain address. A bad value is a ConfigurationError,
 * whose message names the flag and what it takes, so the user can act on it.
 */

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

/** A flag naming a file: absent is fine, blank is not. */
export function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '')
    throw new ConfigurationError(`${flag} must name a file`);
  return value;
}

export function integer(flag: string, raw: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigurationError(`${flag} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** A bare address (`box@example.com`), as `--mailbox` and `--suppressed` take. */
export function plainAddress(flag: string, address: string): string {
  if (!/^[^\s@<>,]+@[^\s@<>,]+$/.test(address))
    throw new ConfigurationError(
      `${flag} must be a plain address like box@example.com, got "${address}"`,
    );
  return address;
}
