import { isIPv4, isIPv6 } from 'node:net';
import { domainToUnicode } from 'node:url';
import ipaddr from 'ipaddr.js';
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

/**
 * D-50: received mail carries addresses D-11 would refuse on send (quoted local parts, address
 * literals, single-label and internationalised domains, non-ASCII local parts; RFC 5321/6531).
 * A parsed header address becomes one canonical string, the one the API shows and that
 * spec/openapi.yaml's `Address.address` pattern admits: lower case and NFC; a local part quoted
 * only when it is not a dot-atom (with `"` and `\` escaped); a domain in Unicode (an `xn--` label
 * decoded, UTS-46 mapped); IPv4 literals as given and IPv6 ones as `[IPv6:<RFC 5952 form>]`; at
 * most 254 octets of UTF-8. Undefined when it is none of these (it then cannot be shown).
 */
export function canonicalReceivedAddress(raw: string): string | undefined {
  const text = raw.trim();
  const at = text.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = canonicalLocalPart(text.slice(0, at));
  const domain = canonicalDomain(text.slice(at + 1));
  if (local === undefined || domain === undefined) return undefined;
  const address = `${local}@${domain}`;
  return Buffer.byteLength(address, 'utf8') <= 254 ? address : undefined;
}

/** RFC 6531 `atext`: RFC 5322's, plus any non-ASCII character that is not a space or control. */
const UTEXT = "(?:[a-z0-9!#$%&'*+/=?^_`{|}~-]|[^\\x00-\\x7F\\p{Z}\\p{Cc}\\p{Cs}])";
const DOT_ATOM = new RegExp(`^${UTEXT}+(?:\\.${UTEXT}+)*$`, 'u');
/** Characters a quoted local part may hold (RFC 5321 `qtextSMTP`, `quoted-pairSMTP`, UTF-8). */
const QUOTABLE = /^(?:[\x20-\x7E]|[^\x00-\x7F\p{Zl}\p{Zp}\p{Cc}\p{Cs}])+$/u;
const LABEL_CHAR = '(?:[a-z0-9]|[^\\x00-\\x7F])';
const UNICODE_LABEL = new RegExp(`^${LABEL_CHAR}+(?:-+${LABEL_CHAR}+)*$`, 'u');

function canonicalLocalPart(raw: string): string | undefined {
  const quoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"');
  const content = (quoted ? raw.slice(1, -1).replace(/\\(.)/gs, '$1') : raw)
    .toLowerCase()
    .normalize('NFC');
  if (!QUOTABLE.test(content)) return undefined;
  return DOT_ATOM.test(content) ? content : `"${content.replace(/["\\]/g, '\\$&')}"`;
}

function canonicalDomain(raw: string): string | undefined {
  if (raw.startsWith('[') && raw.endsWith(']')) {
    const literal = raw.slice(1, -1);
    if (isIPv4(literal)) return `[${literal}]`;
    const ipv6 = /^ipv6:([0-9a-f:.]+)$/i.exec(literal)?.[1];
    if (ipv6 !== undefined && isIPv6(ipv6))
      return `[IPv6:${ipaddr.IPv6.parse(ipv6).toRFC5952String()}]`;
    return undefined;
  }
  // UTS-46 (what browsers do): decodes A-labels, maps case and width, refuses what is no domain.
  const domain = /[^\x00-\x7F]|(?:^|\.)xn--/i.test(raw) ? domainToUnicode(raw) : raw.toLowerCase();
  return domain.split('.').every((label) => UNICODE_LABEL.test(label)) ? domain : undefined;
}
