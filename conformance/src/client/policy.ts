/**
 * What a client may send and where it counts what it sent (safety.ts decides each case): a
 * write needs a check that declares it, mail goes only to the given mailboxes, and every file
 * the target stored is listed, since no endpoint deletes an upload (§4.9).
 */
import type { Dialect } from '../binding/dialect.ts';
import type { RateLimiter } from './rate-limit.ts';
import { SafetyRefusal, UndeclaredWrite, disallowedRecipients, isWrite } from './safety.ts';
import type { Target } from './target.ts';
import type { RequestBody } from './exchange-types.ts';

/** What a client may send, how fast, and where it counts what it sent. */
export interface ClientPolicy {
  /**
   * The check declared the need `destructive`: it may send a request that can write through
   * the API (any method but GET, HEAD and OPTIONS to anything but the control plane).
   */
  writes: boolean;
  /** The `--mailbox` addresses; when set, mail may go only to them and the suite's own domain. */
  mailboxes?: readonly string[];
  /** Waits for a free slot before every request (`--max-rps`). */
  limiter?: RateLimiter;
  /** Counts every request sent, control plane and public URLs included. */
  counter?: { requests: number };
  /** How long a request may take, answer body included (`--request-timeout`); none when unset. */
  requestTimeoutMs?: number;
  /**
   * Collects every file the target stored (a 2xx to POST /attachments): no endpoint deletes
   * an upload (§4.9), so a run against a live target lists what it leaves behind.
   */
  uploads?: StoredUpload[];
  /**
   * The target's binding (binding/dialect.ts): requests leave in its names, answers come back
   * in the checks' names. Unset: the default binding (spec/DECISIONS.md).
   */
  dialect?: Dialect;
}

/** A file a check uploaded and could not delete: its id, name and size as the target answered. */
export interface StoredUpload {
  id: string;
  name?: string;
  size?: number;
}

/** Throws before anything is sent when the request breaks the policy (safety.ts). */
export function enforcePolicy(
  target: Target,
  policy: ClientPolicy,
  method: string,
  url: URL,
  json: unknown,
  body: RequestBody | undefined,
): void {
  const control = target.control?.baseUrl;
  const toControl =
    control !== undefined && (url.href === control || url.href.startsWith(`${control}/`));
  const apiBase = new URL(target.baseUrl);
  const apiPath = basePath(target.baseUrl);
  const toApi =
    url.origin === apiBase.origin &&
    (apiPath === '' || url.pathname === apiPath || url.pathname.startsWith(`${apiPath}/`));
  if (toControl || !isWrite(method)) return;
  if (!policy.writes) {
    throw new UndeclaredWrite(
      `this check sent ${method} ${url.pathname} but does not declare needs: ['destructive'] ` +
        '(conformance/src/check-runner/check.ts): a check that may write through the API must say so, ' +
        'so that --profile read-only and targets without --destructive leave it out',
    );
  }
  if (policy.mailboxes === undefined || !toApi) return;
  const refused = disallowedRecipients(
    method,
    url.pathname.slice(apiPath.length),
    { json, ...(typeof body === 'string' ? { text: body } : {}) },
    policy.mailboxes,
  );
  if (refused.length > 0) {
    throw new SafetyRefusal(
      `would send mail to ${refused.join(', ')}: the suite sends only to the --mailbox addresses and its own *.conformance.test addresses (allow an address with --mailbox)`,
    );
  }
}

/** Records the file a 2xx to POST /attachments stored, when the policy collects uploads. */
export function noteUpload(policy: ClientPolicy, text: string): void {
  if (policy.uploads === undefined) return;
  try {
    const { id, name, size } = JSON.parse(text) as Partial<StoredUpload>;
    if (typeof id !== 'string') return;
    policy.uploads.push({
      id,
      ...(typeof name === 'string' ? { name } : {}),
      ...(typeof size === 'number' ? { size } : {}),
    });
  } catch {
    // Not JSON: the contract check above has already judged the answer.
  }
}

/**
 * The path of `{base_url}` without a trailing slash: `/openapi/v1`, or `` for an API served at
 * the root (a proxy such as Prism, `--unversioned-base-url`), whose URL's pathname is `/`.
 */
export function basePath(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}
