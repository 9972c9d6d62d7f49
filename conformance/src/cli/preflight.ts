import type { KeyRole, TargetConfig } from '../run/config.ts';
import { maskSecret } from '../client/redact.ts';
import type { Target } from '../client/target.ts';
import { describeUnreachable } from './unreachable.ts';
import { defaultDialect, type Dialect } from '../binding/dialect.ts';

/**
 * Why the target cannot be checked at all, in one line a person can act on: it cannot be
 * reached, a key is refused, a `--mailbox` is not the keys' to use, or the control plane does
 * not answer. The CLI prints it and exits 2 before any check runs.
 */
export class PreflightFailure extends Error {
  override name = 'PreflightFailure';
}

/** What the preflight looks at: the target's URLs, keys and mailboxes, and how to fetch. */
export type PreflightTarget = Pick<
  Target,
  'baseUrl' | 'apiKey' | 'secondApiKey' | 'keys' | 'mailboxes' | 'control' | 'fetch'
>;

/** Roles whose keys must be refused: the suite checks refusals with them (§5). */
const REFUSED_ROLES: readonly KeyRole[] = ['disabled', 'disabled-owner'];

/**
 * A live target as the preflight needs it: the URLs, keys and mailboxes of the configuration,
 * fetched as targets.ts fetches a live target (redirects not followed), without importing the
 * emulator, so a run that cannot start says so within a second or two.
 */
export function liveTarget(config: Extract<TargetConfig, { kind: 'live' }>): PreflightTarget {
  return {
    baseUrl: config.baseUrl.replace(/\/+$/, ''),
    apiKey: config.apiKey,
    ...(config.secondApiKey === undefined ? {} : { secondApiKey: config.secondApiKey }),
    ...(config.keys === undefined ? {} : { keys: config.keys }),
    mailboxes: config.mailboxes,
    control: config.control,
    fetch: (request) => fetch(request, { redirect: 'manual' }),
  };
}

export interface PreflightResult {
  /** Requests the preflight sent (none of them counts towards the run's figures). */
  requests: number;
  /** Every address the keys' `GET /mailboxes` listed. */
  mailboxes: string[];
}

/**
 * Asks the target, before any check, whether it can be checked: §4.1 makes `GET /mailboxes`
 * the first call of a client, so each key given must be answered 200 there, and every
 * `--mailbox` must be one of the addresses listed. Without a key (the in-process emulator) the
 * API must answer at all, and not with a 5xx. A control plane given must answer its
 * `GET /clock` with 200. Each request waits at most `timeoutMs` (`--request-timeout`).
 * Throws {@link PreflightFailure} naming the first thing wrong; sends nothing but GETs.
 */
export async function preflight(
  target: PreflightTarget,
  { timeoutMs, dialect = defaultDialect() }: { timeoutMs: number; dialect?: Dialect },
): Promise<PreflightResult> {
  const result: PreflightResult = { requests: 0, mailboxes: [] };
  const ask = async (url: string, token: string | undefined, reached: string) => {
    result.requests += 1;
    return fetchWithin(target, url, token, timeoutMs, reached);
  };
  const url = `${target.baseUrl}/mailboxes`;
  const byRole = Object.entries(target.keys ?? {}) as [KeyRole, string][];
  const keys = [
    ['--api-key', target.apiKey],
    ['--second-api-key', target.secondApiKey],
    ...byRole
      .filter(([role]) => !REFUSED_ROLES.includes(role))
      .map(([role, secret]) => [`--key ${role}=`, secret]),
  ]
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .filter(([, key], index, all) => all.findIndex(([, other]) => other === key) === index);
  if (keys.length === 0) {
    const answer = await ask(url, undefined, target.baseUrl);
    if (answer.status >= 500)
      throw new PreflightFailure(`GET ${url} answered ${describeAnswer(answer)}`);
  }
  for (const [flag, key] of keys) {
    const answer = await ask(url, key, target.baseUrl);
    result.mailboxes.push(...listedMailboxes(answer, url, flag, key, dialect));
  }
  for (const [role, key] of byRole.filter(([role]) => REFUSED_ROLES.includes(role))) {
    const answer = await ask(url, key, target.baseUrl);
    if (answer.status !== 401 && answer.status !== 403)
      throw new PreflightFailure(
        `the key ${redactSecret(key)} given as --key ${role}= is not refused (GET ${url} answered ${answer.status}): give a key that is ${role === 'disabled' ? 'disabled' : 'of a disabled owner'}`,
      );
  }
  const listed = new Set(result.mailboxes.map((address) => address.toLowerCase()));
  for (const mailbox of target.mailboxes ?? []) {
    if (!listed.has(mailbox.toLowerCase())) {
      throw new PreflightFailure(
        `--mailbox ${mailbox} is not among the mailboxes the key${keys.length === 1 ? '' : 's'} may use (GET /mailboxes listed ${listing(result.mailboxes)})`,
      );
    }
  }
  if (target.control !== undefined) {
    const clock = `${target.control.baseUrl}/clock`;
    const answer = await ask(clock, target.control.token, target.control.baseUrl);
    if (answer.status === 401 || answer.status === 403) {
      throw new PreflightFailure(
        `the control token ${redactSecret(target.control.token)} is not accepted by ${target.control.baseUrl} (${describeAnswer(answer)})`,
      );
    }
    if (answer.status !== 200) {
      throw new PreflightFailure(
        `GET ${clock} answered ${describeAnswer(answer)}: is --control-url a control plane like the emulator's (ending in /_mailtwin/v1)?`,
      );
    }
  }
  return result;
}

interface Answer {
  status: number;
  contentType: string;
  location: string | null;
  text: string;
}

/** The addresses a 200 of `GET /mailboxes` lists; any other answer fails the preflight. */
function listedMailboxes(
  answer: Answer,
  url: string,
  flag: string,
  key: string,
  dialect: Dialect,
): string[] {
  if (answer.status === 401 || answer.status === 403) {
    throw new PreflightFailure(
      `the API key ${redactSecret(key)}${flag === '--api-key' ? '' : ` (${flag})`} is not accepted (${describeAnswer(answer)})`,
    );
  }
  if (answer.status !== 200) {
    const hint =
      answer.status >= 300 && answer.status < 400
        ? `: give the URL it redirects to as --base-url`
        : answer.status === 404
          ? `: is --base-url the deployment's full versioned endpoint ({base_url}, §5 rule 5)?`
          : '';
    throw new PreflightFailure(`GET ${url} answered ${describeAnswer(answer)}${hint}`);
  }
  let body: unknown;
  try {
    // In the checks' names: a bare list of records with an `address` (binding/dialect.ts).
    body = dialect.canonicalAnswer('listMailboxes', 200, JSON.parse(answer.text)).json;
  } catch {
    throw new PreflightFailure(
      `GET ${url} answered 200 with ${answer.contentType || 'no Content-Type'}, not JSON: is --base-url the deployment's {base_url}?`,
    );
  }
  if (!Array.isArray(body)) {
    throw new PreflightFailure(
      `GET ${url} answered 200 with JSON that is not a list of mailboxes (§4.1, spec/openapi.yaml)`,
    );
  }
  return body
    .map((item) => (item as { address?: unknown } | null)?.address)
    .filter((address): address is string => typeof address === 'string');
}

/** `401 invalid_api_key: The API key is not valid.`, or the status and the start of the body. */
function describeAnswer(answer: Answer): string {
  let error: { code?: unknown; message?: unknown } = {};
  try {
    error = JSON.parse(answer.text) ?? {};
  } catch {
    // not JSON: say what it is below
  }
  if (typeof error.code === 'string') {
    const message = typeof error.message === 'string' ? `: ${oneLine(error.message, 120)}` : '';
    return `${answer.status} ${error.code}${message}`;
  }
  if (answer.location !== null) return `${answer.status} to ${answer.location}`;
  const text = oneLine(answer.text, 80);
  return `${answer.status}${text === '' ? '' : ` (${answer.contentType || 'no Content-Type'}: ${text})`}`;
}

/** A key or token as a line may show it: its prefix and at most its last four characters. */
function redactSecret(secret: string): string {
  return maskSecret(secret, /^(sk-|whsec_|mt_)/.exec(secret)?.[1] ?? '');
}

function listing(addresses: string[]): string {
  if (addresses.length === 0) return 'none';
  const shown = addresses.slice(0, 5).join(', ');
  return addresses.length > 5 ? `${shown} and ${addresses.length - 5} more` : shown;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * One GET, its whole answer read within `timeoutMs`. A failure to get any HTTP answer becomes
 * a PreflightFailure naming `reached` (the URL the user gave) and the cause.
 */
async function fetchWithin(
  target: PreflightTarget,
  url: string,
  token: string | undefined,
  timeoutMs: number,
  reached: string,
): Promise<Answer> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(
        new PreflightFailure(
          `cannot reach ${reached}: no answer within ${timeoutMs} ms (--request-timeout)`,
        ),
      );
    }, timeoutMs);
  });
  const read = async (): Promise<Answer> => {
    const response = await target.fetch(
      new Request(url, {
        headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
        signal: abort.signal,
      }),
    );
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      location: response.headers.get('location'),
      text: await response.text(),
    };
  };
  try {
    return await Promise.race([read(), deadline]);
  } catch (error) {
    if (error instanceof PreflightFailure) throw error;
    if (abort.signal.aborted)
      throw new PreflightFailure(
        `cannot reach ${reached}: no answer within ${timeoutMs} ms (--request-timeout)`,
      );
    throw new PreflightFailure(`cannot reach ${reached}: ${describeUnreachable(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
