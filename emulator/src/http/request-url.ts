import type { Context } from 'hono';

/** What `new URL(url)` gives for the two parts of a request's URL the edge reads. */
export interface PathAndSearch {
  pathname: string;
  /** `?` and the query, or `''` when there is none (or only a `?`), as `URL.search`. */
  search: string;
}

/**
 * `new URL(url)`'s `pathname` and `search`, read from the string without parsing it when they
 * hold only characters that URL parsing keeps as they are: in the path no `%` (an escape it
 * could normalise) and no `.` (a dot segment it would resolve), in the query no `'` (escaped
 * there), in neither a `#` (a fragment) nor anything outside printable ASCII, and a plain `http`
 * or `https` host before them. Any other URL is parsed, so both ways give the same answer for
 * every URL (request-url.test.ts).
 */
export function pathAndSearchOf(url: string): PathAndSearch {
  const start = pathStart(url);
  if (start === -1) return parsed(url);
  const query = url.indexOf('?', start);
  const pathname = query === -1 ? url.slice(start) : url.slice(start, query);
  const rest = query === -1 ? '' : url.slice(query + 1);
  if (!PLAIN_PATH.test(pathname) || !PLAIN_QUERY.test(rest)) return parsed(url);
  return { pathname, search: rest === '' ? '' : `?${rest}` };
}

/** `new URL(url).pathname`, read as `pathAndSearchOf` reads it, whatever the query holds. */
export function pathnameOf(url: string): string {
  const start = pathStart(url);
  if (start === -1) return new URL(url).pathname;
  let end = url.length;
  for (const stop of ['?', '#']) {
    const at = url.indexOf(stop, start);
    if (at !== -1 && at < end) end = at;
  }
  const pathname = url.slice(start, end);
  return PLAIN_PATH.test(pathname) ? pathname : new URL(url).pathname;
}

/** Where the path of a URL with a plain `http` or `https` host starts, or -1. */
function pathStart(url: string): number {
  const scheme = url.startsWith('http://') ? 7 : url.startsWith('https://') ? 8 : -1;
  const start = scheme === -1 ? -1 : url.indexOf('/', scheme);
  return start !== -1 && PLAIN_AUTHORITY.test(url.slice(scheme, start)) ? start : -1;
}

function parsed(url: string): PathAndSearch {
  const { pathname, search } = new URL(url);
  return { pathname, search };
}

const PLAIN_AUTHORITY = /^[A-Za-z0-9\-_.:[\]]+$/;
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~!$&'()*+,;=:@/]*$/;
const PLAIN_QUERY = /^[A-Za-z0-9\-_~!$&()*+,;=:@/?.%[\]]*$/;

/** Where a request's parsed parameters are kept, on its Hono request itself. */
const QUERIES = Symbol('queries');

/**
 * `c.req.queries()`, parsed once for the request: Hono parses the URL again on every call, and
 * both the parameter limits and the route read every parameter. The same object each time, so
 * no reader may change it. Kept on the request under a symbol, where a WeakMap entry a request
 * cost more to add and to collect (as for the access, request-access.ts; issue 31 item 1).
 */
export function queriesOf(c: Context): Record<string, string[]> {
  const req = c.req as Context['req'] & { [QUERIES]?: Record<string, string[]> };
  let found = req[QUERIES];
  if (found === undefined) {
    found = c.req.queries();
    req[QUERIES] = found;
  }
  return found;
}
