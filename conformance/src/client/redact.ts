/**
 * Secrets never reach a report or a console line: API keys (`sk-…`, §2.1), webhook signing
 * secrets (`whsec_…`, §2.5), control-plane tokens (the emulator's `mt_…`, the in-process
 * `conformance-<uuid>`) and any secret the run was given. Each is cut to its prefix and its
 * last four characters (`sk-…abcd`): enough to tell two keys apart in a failure, not enough to
 * use one. Exchange rendering (exchange.ts) and the report boundary (reports.ts) both go
 * through this one function.
 */

/** Shapes of secrets, by the prefix kept when one is redacted. */
const SHAPES: readonly { prefix: string; pattern: RegExp }[] = [
  { prefix: 'sk-', pattern: /\bsk-([A-Za-z0-9._~+/=-]{4,})/g },
  { prefix: 'whsec_', pattern: /\bwhsec_([A-Za-z0-9._~+/=-]{4,})/g },
  { prefix: 'mt_', pattern: /\bmt_([A-Za-z0-9._~+/=-]{4,})/g },
  {
    prefix: 'conformance-',
    pattern: /\bconformance-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/g,
  },
];

/**
 * A secret given by name (a `--api-key` of any shape) is replaced only from this length on:
 * a shorter one (`--api-key test` against a mock) would blank out ordinary words, and appears
 * in a report only as a whole header value, which exchange rendering names by its role.
 */
export const MIN_KNOWN_SECRET_LENGTH = 8;

/**
 * `prefix` + `…` + the last four characters; a body shorter than twelve characters keeps none
 * (four of eight would give half of it away).
 */
export function maskSecret(secret: string, prefix = ''): string {
  const body = secret.slice(prefix.length);
  return body.length < 12 ? `${prefix}…` : `${prefix}…${body.slice(-4)}`;
}

/**
 * The text with every secret masked: first the `known` ones (the run's keys and tokens,
 * whatever their shape), then anything shaped like a key, webhook secret or control token.
 * Masking is idempotent: masked text passes through unchanged.
 */
export function redactSecrets(text: string, known: readonly (string | undefined)[] = []): string {
  let result = text;
  const given = known
    .filter((s): s is string => s !== undefined && s.length >= MIN_KNOWN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of given) {
    if (result.includes(secret)) {
      const shape = SHAPES.find((s) => secret.startsWith(s.prefix));
      result = result.split(secret).join(maskSecret(secret, shape?.prefix));
    }
  }
  for (const { prefix, pattern } of SHAPES) {
    result = result.replace(pattern, (whole: string, body: string) => {
      // A sentence may end right after a key: the full stop is not part of it.
      const trimmed = body.replace(/\.+$/, '');
      return `${maskSecret(`${prefix}${trimmed}`, prefix)}${body.slice(trimmed.length)}`;
    });
  }
  return result;
}
