/**
 * Public targets only (service document §2.5, §6.4: "Public HTTP or HTTPS URL on a public
 * hostname. Redirects and local addresses are not accepted."; D-45). Two checks:
 * `checkWebhookUrl` when a webhook is created (syntax, scheme, credentials, IP literals, obviously
 * local names), and `resolvePublicAddresses` before EVERY delivery attempt, so a name that later
 * resolves to a private address (DNS rebinding) is refused. The caller connects to one of the
 * returned addresses, so the address checked is the address connected to.
 *
 * Range classification is ipaddr.js's; only explicitly global ranges count as public.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { quoteForMessage } from '../errors.ts';
import ipaddr from 'ipaddr.js';

/** A DNS lookup, injected so tests never touch the network. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

/** The production resolver: the system's, every answer, in the order the system gives them. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface GuardOptions {
  /** `--allow-loopback-webhooks`: permits 127.0.0.0/8, ::1 and `localhost` names, nothing else. */
  allowLoopback: boolean;
}

export type UnsafeTargetCode =
  | 'invalid_url'
  | 'url_too_long'
  | 'scheme_not_allowed'
  | 'credentials_in_url'
  | 'fragment_in_url'
  | 'local_hostname'
  | 'non_public_address'
  | 'unresolvable_host';

/** Why a webhook URL is refused, in words a user can act on. */
export class UnsafeWebhookTarget extends Error {
  constructor(
    readonly code: UnsafeTargetCode,
    message: string,
  ) {
    super(message);
    this.name = 'UnsafeWebhookTarget';
  }
}

export interface ParsedTarget {
  url: URL;
  /** The host without IPv6 brackets: a canonical IP literal, or the name as WHATWG URL gives it. */
  hostname: string;
  port: number;
  isIpLiteral: boolean;
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** ipaddr.js names a range; these words say what it is to the user. */
const RANGE_WORDS: Record<string, string> = {
  private: 'a private network address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address (this includes cloud metadata endpoints)',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  unspecified: 'the unspecified address',
  uniqueLocal: 'a unique-local IPv6 address',
  reserved: 'a reserved or documentation address',
  unallocated: 'outside the global unicast range 2000::/3',
  invalid: 'not a plain IP address',
};

/** Non-global names (RFC 6761, RFC 6762 appendix G, RFC 8375, ICANN's `.internal`). */
const LOCAL_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'home.arpa',
  'localdomain',
  'lan',
  'intranet',
  'private',
  'corp',
  'home',
];
const LOOPBACK_HINT =
  'To deliver to a receiver on this machine, start the emulator with --allow-loopback-webhooks and use http://127.0.0.1:<port>/ or http://localhost:<port>/.';

/** IANA's global unicast allocation for IPv6; ipaddr.js says 'unicast' for anything unnamed. */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** Parses `address` as ipaddr.js sees it; IPv4-mapped IPv6 becomes the IPv4 it maps. */
function classify(address: string): { ip: ipaddr.IPv4 | ipaddr.IPv6; range: string } | null {
  // Only canonical literals: anything else would be looked up again when connecting.
  if (isIP(address) === 0) return null;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  }
  let range: string = ip.range();
  // ipaddr.js calls everything it has no name for 'unicast', e.g. IPv4-compatible ::7f00:1;
  // only 2000::/3 is allocated as global unicast.
  if (ip.kind() === 'ipv6' && range === 'unicast' && !ip.match(IPV6_GLOBAL_UNICAST)) {
    range = 'unallocated';
  }
  return { ip, range };
}

/** Whether a delivery may connect to `address` (a canonical IP literal). */
export function isPublicAddress(address: string, options: GuardOptions): boolean {
  const c = classify(address);
  if (c === null) return false;
  return c.range === 'unicast' || (options.allowLoopback && c.range === 'loopback');
}

function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

function refuseAddress(address: string, shownAs: string, options: GuardOptions): never {
  const range = classify(address)?.range ?? 'invalid';
  const words = RANGE_WORDS[range] ?? `a non-public address (${range})`;
  const extra = range === 'loopback' && !options.allowLoopback ? ` ${LOOPBACK_HINT}` : '';
  throw new UnsafeWebhookTarget(
    'non_public_address',
    `Webhook URL host ${quoteForMessage(shownAs)} is ${words}; webhooks are only delivered to public addresses (§2.5).${extra}`,
  );
}

/** Refuses names that are local by definition, before any lookup. */
function checkHostname(hostname: string, options: GuardOptions): void {
  const name = hostname.replace(/\.$/, '');
  if (options.allowLoopback && isLocalhostName(name)) return;
  const local = LOCAL_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  if (local !== undefined || !name.includes('.')) {
    const why = local !== undefined ? `ends in .${local}` : 'has no dot';
    const extra = isLocalhostName(name) ? ` ${LOOPBACK_HINT}` : '';
    throw new UnsafeWebhookTarget(
      'local_hostname',
      `Webhook URL host "${quoteForMessage(hostname)}" ${why}, so it names a local machine; use a public hostname (§2.5).${extra}`,
    );
  }
}

/** Checks a webhook URL when the webhook is created or changed. Throws UnsafeWebhookTarget. */
export function checkWebhookUrl(raw: string, options: GuardOptions): ParsedTarget {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new UnsafeWebhookTarget(
      'url_too_long',
      `Webhook URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`,
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeWebhookTarget(
      'invalid_url',
      'Webhook URL is not a valid absolute URL, e.g. https://hooks.example.com/mail.',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UnsafeWebhookTarget(
      'scheme_not_allowed',
      `Webhook URL must use http: or https:, not ${quoteForMessage(url.protocol)}.`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeWebhookTarget(
      'credentials_in_url',
      'Webhook URL must not contain a user name or password; verify deliveries with the webhook signing secret instead.',
    );
  }
  if (url.href.includes('#')) {
    throw new UnsafeWebhookTarget(
      'fragment_in_url',
      'Webhook URL must not contain a #fragment; it is never sent to the receiver.',
    );
  }
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new UnsafeWebhookTarget(
      'url_too_long',
      `Webhook URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters once normalized.`,
    );
  }
  if (url.hostname === '') {
    throw new UnsafeWebhookTarget('invalid_url', 'Webhook URL has no hostname.');
  }
  if (url.port === '0') {
    throw new UnsafeWebhookTarget('invalid_url', 'Webhook URL port 0 cannot be connected to.');
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  // WHATWG URL turns every IPv4 notation (2130706433, 0177.0.0.1, 0x7f.1, 127.1) into dotted
  // decimal and brackets IPv6, so one test per family sees every literal.
  const bracketed = url.hostname.startsWith('[');
  const hostname = bracketed ? url.hostname.slice(1, -1) : url.hostname;
  const isIpLiteral = bracketed || isIP(hostname) === 4;
  if (isIpLiteral) {
    if (!isPublicAddress(hostname, options)) refuseAddress(hostname, url.hostname, options);
  } else {
    checkHostname(hostname, options);
  }
  return { url, hostname, port, isIpLiteral };
}

/** The canonical form a delivery connects to: IPv4-mapped IPv6 as the IPv4 it maps. */
function canonical(address: string): string {
  return classify(address)?.ip.toString() ?? address;
}

/**
 * Before every delivery attempt: the vetted addresses for `target`, each public. Refuses the
 * target if ANY answer is not public (a rebinding name may hand out a public and a private
 * address), and if the name does not resolve.
 */
export async function resolvePublicAddresses(
  target: ParsedTarget,
  resolver: Resolver,
  options: GuardOptions,
): Promise<string[]> {
  if (target.isIpLiteral) {
    if (!isPublicAddress(target.hostname, options))
      refuseAddress(target.hostname, target.hostname, options);
    return [canonical(target.hostname)];
  }
  checkHostname(target.hostname, options);
  let answers: { address: string }[];
  try {
    answers = await resolver(target.hostname);
  } catch (error) {
    const why = error instanceof Error && 'code' in error ? ` (${String(error.code)})` : '';
    throw new UnsafeWebhookTarget(
      'unresolvable_host',
      `Webhook host "${quoteForMessage(target.hostname)}" does not resolve${why}.`,
    );
  }
  if (answers.length === 0) {
    throw new UnsafeWebhookTarget(
      'unresolvable_host',
      `Webhook host "${quoteForMessage(target.hostname)}" has no addresses.`,
    );
  }
  const localhost = isLocalhostName(target.hostname.replace(/\.$/, ''));
  for (const { address } of answers) {
    if (!isPublicAddress(address, options)) {
      refuseAddress(address, `"${target.hostname}" (resolves to ${address})`, options);
    }
    if (localhost && classify(address)?.range !== 'loopback') {
      // Only reachable with allowLoopback; a localhost name must stay on this machine.
      throw new UnsafeWebhookTarget(
        'non_public_address',
        `Webhook host "${quoteForMessage(target.hostname)}" resolves to ${address}, not to a loopback address; localhost names must stay on this machine.`,
      );
    }
  }
  return [...new Set(answers.map((a) => canonical(a.address)))];
}
