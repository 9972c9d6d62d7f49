/**
 * What keeps the suite safe against a real deployment, decided before a request leaves:
 * a check writes through the API only when it declared the need `destructive` (so a read-only
 * run cannot write), and against a live target mail goes only to the given mailboxes.
 */

/** The suite refused to send a request; the check is skipped with this reason, never passed. */
export class SafetyRefusal extends Error {
  override name = 'SafetyRefusal';
}

/** A check wrote through the API without declaring `destructive`: a bug in the check. */
export class UndeclaredWrite extends Error {
  override name = 'UndeclaredWrite';
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Any method but GET, HEAD and OPTIONS may change data, whatever answer the check expects. */
export function isWrite(method: string): boolean {
  return !READ_METHODS.has(method.toUpperCase());
}

/** Mail addressed here reaches nobody: `.test` is reserved (RFC 6761), and the suite owns this. */
export const SUITE_DOMAIN = 'conformance.test';

/** The operations that send mail (§4.3, §4.7, §4.8), by path relative to `{base_url}`. */
const SENDING_PATH = /^\/emails\/(?:send|[^/]+\/(?:reply|forward))$/;

/** Anything that looks like local@domain inside a recipient value, display names included. */
const ADDRESS = /[^\s<>,;:"'()[\]]+@[^\s<>,;:"'()[\]]+/g;

/**
 * The recipients of a send, reply or forward that are not allowed, or [] when every one is.
 * Allowed: the `--mailbox` addresses and addresses at the suite's own domain and its
 * subdomains (the mailboxes it builds through a control plane, and its "external" addresses).
 * Recipients are read from to, cc and bcc of a JSON body, whatever their shape (a check may
 * send a malformed list on purpose); a body that is not JSON is scanned whole.
 */
export function disallowedRecipients(
  method: string,
  relativePath: string,
  body: { json?: unknown; text?: string },
  mailboxes: readonly string[],
): string[] {
  if (method.toUpperCase() !== 'POST' || !SENDING_PATH.test(relativePath)) return [];
  const allowed = new Set(mailboxes.map((m) => m.toLowerCase()));
  let values: string[];
  const parsed = body.json !== undefined ? body.json : tryJson(body.text);
  if (parsed !== undefined && parsed !== null && typeof parsed === 'object') {
    const record = parsed as Record<string, unknown>;
    values = ['to', 'cc', 'bcc'].flatMap((field) => strings(record[field]));
  } else {
    values = body.text === undefined ? [] : [body.text];
  }
  const refused = new Set<string>();
  for (const value of values) {
    for (const [token] of value.matchAll(ADDRESS)) {
      const address = token.toLowerCase();
      const domain = address.slice(address.lastIndexOf('@') + 1);
      const ours = domain === SUITE_DOMAIN || domain.endsWith(`.${SUITE_DOMAIN}`);
      if (!ours && !allowed.has(address)) refused.add(token);
    }
  }
  return [...refused];
}

function tryJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Every string inside a value, however deeply nested. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}
