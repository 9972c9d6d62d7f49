import ipaddr from 'ipaddr.js';
import type { MiddlewareHandler } from 'hono';
import { ApiError, quoteForMessage } from '../errors.ts';
import { passesOn } from './one-handler.ts';

/** `--allowed-hosts`: the extra names served, or `'all'` to serve any `Host` (no check). */
export type AllowedHosts = 'all' | readonly string[];

export interface HostPolicy {
  /** Names given with `--allowed-hosts`; `.example.test` also allows every name under it. */
  allowed: AllowedHosts;
  /** The `--host` the server listens on; served too when it is a name. */
  boundHost?: string | undefined;
}

/**
 * D-66: whether a request naming `authority` (a `Host` header, or the host of the request's
 * URL: `name`, `name:port`, `[v6]:port`) may be answered. A DNS-rebinding page reaches the
 * emulator under its own name (`attacker.example`), so names are served only when they cannot
 * be rebound from outside: `localhost` and `*.localhost` (RFC 6761 keeps them on this machine),
 * the name the server was told to listen on, and names the user gave. An IP literal is served
 * whatever it is, as Vite does: no DNS answer is involved in reaching it, so no page of another
 * origin can make a browser send it. Anything that is not a host (a user part, a path) is not.
 */
export function hostAllowed(authority: string, policy: HostPolicy): boolean {
  if (policy.allowed === 'all') return true;
  const hostname = hostnameOf(authority);
  if (hostname === undefined) return false;
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  if (isIpLiteral(hostname)) return true;
  if (policy.boundHost !== undefined && hostname === normalName(policy.boundHost)) return true;
  return policy.allowed.some((entry) => {
    const name = normalName(entry);
    return name.startsWith('.')
      ? hostname === name.slice(1) || hostname.endsWith(name)
      : hostname === name;
  });
}

/** Letters, digits and what a host, a port and an IPv6 literal may hold; no `@`, `/`, space. */
const AUTHORITY = /^[A-Za-z0-9._~%!$&'()*+,;=:[\]-]+$/;

/** The host name of an authority as a browser normalizes it (lower case, `127.1` → `127.0.0.1`). */
function hostnameOf(authority: string): string | undefined {
  if (!AUTHORITY.test(authority)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${authority}/`);
  } catch {
    return undefined;
  }
  if (url.username !== '' || url.password !== '') return undefined;
  return normalName(url.hostname.replace(/^\[(.*)\]$/, '$1'));
}

function normalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

function isIpLiteral(hostname: string): boolean {
  // After URL parsing an IPv4 literal is always four decimal parts, an IPv6 one has colons.
  return hostname.includes(':')
    ? ipaddr.IPv6.isValid(hostname)
    : ipaddr.IPv4.isValidFourPartDecimal(hostname);
}

/** Decisions are kept per authority: a server sees a handful of them, asked once per request. */
const CACHE_LIMIT = 64;

/**
 * D-66: refuses, before anything else runs, a request whose `Host` header or URL names a host
 * `hostAllowed` does not serve, with 403 `host_not_allowed` in the Error shape (§7). Mounted
 * once, ahead of every route: API, control plane, dashboard, docs, spec and `/content`.
 */
export function hostCheck(policy: HostPolicy): MiddlewareHandler {
  if (policy.allowed === 'all') return passesOn((_c, next) => next());
  const decided = new Map<string, boolean>();
  const allowed = (authority: string) => {
    let verdict = decided.get(authority);
    if (verdict === undefined) {
      verdict = hostAllowed(authority, policy);
      if (decided.size < CACHE_LIMIT) decided.set(authority, verdict);
    }
    return verdict;
  };
  // Not async: a request passes with the next handler's own promise, one fewer a request.
  return passesOn((c, next) => {
    const header = c.req.header('host');
    const url = c.req.url;
    // Node builds the URL from the Host header, or from an absolute request target, which a
    // proxy may send with another Host: both must name a host served here. The URL built from
    // the header (every request but a proxy's) names the same authority: asked once.
    if (header !== undefined && namesAuthority(url, header)) {
      if (!allowed(header)) refuse(header);
      return next();
    }
    const urlHost = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
    for (const authority of header === undefined ? [urlHost] : [header, urlHost]) {
      if (!allowed(authority)) refuse(authority);
    }
    return next();
  });
}

/**
 * Whether `url`'s authority (what the pattern above reads: after `scheme://`, up to the first
 * `/`, `?` or `#`) is exactly `authority`, for the `http` and `https` URLs the server builds,
 * read without a regular expression and its match.
 */
export function namesAuthority(url: string, authority: string): boolean {
  const start = url.startsWith('http://') ? 7 : url.startsWith('https://') ? 8 : -1;
  if (start === -1 || !url.startsWith(authority, start)) return false;
  const end = start + authority.length;
  if (end < url.length && !AUTHORITY_ENDS.has(url.charCodeAt(end))) return false;
  for (let i = start; i < end; i += 1) if (AUTHORITY_ENDS.has(url.charCodeAt(i))) return false;
  return true;
}

/** `/`, `?`, `#`: where a URL's authority ends. */
const AUTHORITY_ENDS = new Set([0x2f, 0x3f, 0x23]);

function refuse(authority: string): never {
  const name = hostnameOf(authority);
  const hint =
    name === undefined
      ? ''
      : ` To serve it, start mailtwin serve with --allowed-hosts ${quoteForMessage(name)}.`;
  throw new ApiError(
    'host_not_allowed',
    `The host "${quoteForMessage(authority)}" is not served here: only localhost, *.localhost, IP addresses, the --host address and the names of --allowed-hosts are, so that a web page cannot reach the emulator by DNS rebinding (D-66).${hint}`,
  );
}
