import {
  saveReplayFiles,
  secretVariables,
  toCurl,
  type ReplayContext,
  type SecretVariable,
} from './curl.ts';
import { bodyForLog } from './printable.ts';
import { redactSecrets } from './redact.ts';

export { toCurl, type ReplayContext } from './curl.ts';
export type { Exchange, ExchangePart } from './exchange-types.ts';
import type { Exchange, ExchangePart } from './exchange-types.ts';

/** A request body as an exchange keeps it: text as is, bytes and multipart parts for replay. */
export async function recordBody(
  body: string | Uint8Array | FormData | undefined,
): Promise<Pick<Exchange['request'], 'body' | 'bytes' | 'parts'>> {
  if (body === undefined) return {};
  if (typeof body === 'string') return { body };
  if (body instanceof Uint8Array) return { body: `<${body.length} bytes>`, bytes: body.slice() };
  const parts: ExchangePart[] = [];
  for (const [name, value] of body) {
    if (typeof value === 'string') parts.push({ name, value });
    else
      parts.push({
        name,
        bytes: new Uint8Array(await value.arrayBuffer()),
        filename: value.name,
        type: value.type,
      });
  }
  return { body: '<multipart form data>', parts };
}

/** A secret a check made through the control plane: the call that made it, and its variable. */
interface MadeSecret extends SecretVariable {
  exchange: Exchange;
  /** Where the secret is in the call's JSON answer, for `jq -r`. */
  field: string;
}

/**
 * Secrets made by the checks, by the check's exchange log. The log is emptied between the
 * cases of a property; the keys made before the property stay known.
 */
const madeByLog = new WeakMap<readonly Exchange[], MadeSecret[]>();

/**
 * Records that `exchange` (a control-plane call in `log`) made `secret`, found in its JSON
 * answer at `field`: a replay names the secret `KEY_n` (or `<stem>_n`) and prints that call as
 * `KEY_n=$(curl … | jq -r .secret)` before the first exchange that uses it.
 */
export function recordMadeSecret(
  log: readonly Exchange[],
  exchange: Exchange,
  secret: string,
  { field = 'secret', stem = 'KEY' }: { field?: string; stem?: string } = {},
): void {
  if (typeof secret !== 'string' || secret === '') return;
  const made = madeByLog.get(log) ?? [];
  if (made.some((m) => m.secret === secret)) return;
  const n = made.filter((m) => m.variable.startsWith(`${stem}_`)).length + 1;
  made.push({ secret, variable: `${stem}_${n}`, exchange, field });
  madeByLog.set(log, made);
}

interface Rendering {
  context: ReplayContext;
  variables: SecretVariable[];
  made: readonly MadeSecret[];
  maxBody: number;
}

/** A short, readable account of the exchange for failure messages, with no secret in it. */
export function describeExchange(
  exchange: Exchange,
  context: ReplayContext,
  maxBody = 800,
): string {
  return describe(exchange, { context, variables: secretVariables(context), made: [], maxBody });
}

function describe(exchange: Exchange, r: Rendering): string {
  const maker = r.made.find((m) => m.exchange === exchange);
  const command = toCurl(exchange, r.context, r.variables, maker !== undefined);
  const lines = [
    maker === undefined
      ? `  replay: ${command}`
      : `  replay: ${maker.variable}=$(${command} | jq -r ${jqPath(maker.field)})`,
  ];
  if (exchange.response === undefined) {
    lines.push('  response: none (the request failed before an answer arrived)');
  } else {
    const { status, headers, bodyText } = exchange.response;
    const type = headers['content-type'] ?? 'no content-type';
    // A file's bytes are summarised and control characters escaped, so the log stays text.
    const length = Number.parseInt(headers['content-length'] ?? '', 10);
    const size = Number.isInteger(length) ? length : Buffer.byteLength(bodyText);
    const body = bodyForLog(bodyText, size, r.maxBody);
    lines.push(`  response: ${status} (${type}) ${body}`);
  }
  for (const violation of exchange.violations) lines.push(`  spec violation: ${violation}`);
  return redactSecrets(
    lines.join('\n'),
    r.variables.map((v) => v.secret),
  );
}

/**
 * The last `count` exchanges of a check's log for its failure message, oldest first, each as a
 * replay and its answer. A key the check made and these exchanges use is shown as made: the
 * control-plane call that made it comes first (`KEY_1=$(curl … | jq -r .secret)`), and the
 * exchanges send `$KEY_1`. The bytes the replays read are saved (`context.files`).
 */
export function replayExchanges(
  log: readonly Exchange[],
  count: number,
  context: ReplayContext,
  maxBody = 800,
): string[] {
  const recent = log.slice(-count);
  if (recent.length === 0) return ['  (no HTTP exchange)'];
  const made = madeByLog.get(log) ?? [];
  const r: Rendering = {
    context,
    variables: secretVariables(context, made),
    made,
    maxBody,
  };
  const used = made.filter(
    (m) => !recent.includes(m.exchange) && recent.some((x) => sends(x, m.secret)),
  );
  saveReplayFiles([...used.map((m) => m.exchange), ...recent], context);
  return [
    ...used.map(
      (m) =>
        `  made earlier by the check: ${describe(m.exchange, r)
          .split('\n')[0]!
          .replace(/^ {2}replay: /, '')}`,
    ),
    ...recent.map((x) => describe(x, r)),
  ];
}

/** Whether the request carries the secret (header, URL or body). */
function sends(exchange: Exchange, secret: string): boolean {
  const { url, headers, body } = exchange.request;
  return (
    url.includes(secret) ||
    (body ?? '').includes(secret) ||
    Object.values(headers).some((v) => v.includes(secret))
  );
}

function jqPath(field: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(field) ? `.${field}` : `'.${JSON.stringify(field)}'`;
}
