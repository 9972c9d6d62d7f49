/**
 * Why a request got no HTTP answer at all, in a few words and the system's code: what a person
 * needs to fix a `--base-url` or `--control-url` (a port nothing listens on, a host name that
 * does not resolve, a TLS failure, a server that does not speak HTTP). Node's fetch throws
 * `TypeError: fetch failed` for all of them; the cause says which.
 */
export function describeUnreachable(error: unknown): string {
  const cause = rootCause(error);
  const code = typeof cause.code === 'string' ? cause.code : undefined;
  const message = firstLine(typeof cause.message === 'string' ? cause.message : String(error));
  if (code === undefined) {
    if (message === 'bad port')
      return 'fetch refuses this port: the Fetch standard blocks it, as it blocks 1, 9, 25 and others';
    return message;
  }
  const known = KNOWN_CAUSES[code];
  if (known !== undefined) return `${known} (${code})`;
  if (code.startsWith('HPE_')) return `the answer is not HTTP: ${message} (${code})`;
  if (TLS_CODE.test(code)) {
    // OpenSSL's own text: `8030…:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:…`
    const reason = /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1] ?? message;
    return `TLS error: ${reason} (${code})`;
  }
  return `${message} (${code})`;
}

const KNOWN_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  EPIPE: 'the connection was closed while sending',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection closed without an answer',
  UND_ERR_HEADERS_TIMEOUT: 'no answer headers in time',
};

/** OpenSSL's and Node's TLS and certificate error codes. */
const TLS_CODE =
  /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_OSSL_)/;

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** The innermost cause: fetch wraps the socket's error; happy eyeballs wraps several. */
function rootCause(error: unknown): ErrorLike {
  let current = (error ?? {}) as ErrorLike;
  for (let depth = 0; depth < 5; depth += 1) {
    if (current.cause !== undefined && current.cause !== null) {
      current = current.cause as ErrorLike;
    } else if (Array.isArray(current.errors) && current.errors.length > 0) {
      current = current.errors[0] as ErrorLike;
    } else break;
  }
  return current;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.replace(/:?\s*$/, '');
}
