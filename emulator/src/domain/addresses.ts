import type { Address } from './types.ts';

/**
 * D-11: `local@domain` with a dot-atom local part and a domain of dot-separated labels (at
 * least one dot), at most 254 octets; optionally `Name <address>`. Addresses are compared and
 * stored lower case.
 */
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL = `${ATEXT}(?:\\.${ATEXT})*`;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const DOMAIN = `${LABEL}(?:\\.${LABEL})+`;
const ADDRESS = new RegExp(`^${LOCAL}@${DOMAIN}$`);
const NAMED = /^\s*(.*?)\s*<([^<>]+)>\s*$/s;

export function isValidAddress(address: string): boolean {
  return (
    address.length <= 254 && ADDRESS.test(address) && (address.split('@')[0]?.length ?? 0) <= 64
  );
}

/** Parses `address` or `Name <address>`; undefined when it is not one of those. */
export function parseAddress(input: string): Address | undefined {
  const named = NAMED.exec(input);
  const rawAddress = (named ? named[2] : input)?.trim() ?? '';
  if (!isValidAddress(rawAddress)) return undefined;
  let name = named ? (named[1] ?? '').trim() : '';
  if (name.startsWith('"') && name.endsWith('"') && name.length >= 2)
    name = name.slice(1, -1).replace(/\\(.)/g, '$1');
  if (/[\r\n]/.test(name)) return undefined;
  return { address: rawAddress.toLowerCase(), name: name === '' ? null : name };
}

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
