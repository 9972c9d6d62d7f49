import {
  createServer,
  IncomingMessage,
  STATUS_CODES,
  type Server,
  type ServerOptions,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  getRequestListener,
  RequestError,
  type Http2Bindings,
  type HttpBindings,
} from '@hono/node-server';
import { ApiError, type ErrorCode } from '../errors.ts';
import { readDeclaredBodyInOneBuffer } from './declared-body.ts';

/** Where and what to serve; the same fields `@hono/node-server`'s `serve()` takes. */
export interface ServeSettings {
  fetch: (request: Request, env?: NodeEnv) => Response | Promise<Response>;
  port: number;
  hostname: string;
  serverOptions?: ServerOptions;
  /**
   * The largest body read into one buffer as it arrives (declared-body.ts): the body limit
   * (`--max-request-bytes`); a larger one is refused before it is read.
   */
  maxBodyBytes?: number;
}

/** What the adapter passes a fetch handler besides the request (Hono's `c.env`). */
export type NodeEnv = HttpBindings | Http2Bindings;

/**
 * `@hono/node-server`'s `serve()`, except that requests refused before they reach the app get
 * the Error shape too (§7): the adapter's own refusals (a bad `Host`, a backslash in the path)
 * through its `errorHandler` hook, which `serve()` does not expose, and Node's parser
 * refusals (malformed request line, headers too large) through the server's `clientError`.
 */
/** How long an idle kept-alive connection stays open: above the 60 s of common proxies. */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export function serveWithJsonErrors(
  settings: ServeSettings,
  listening: (info: AddressInfo) => void,
): Server {
  const maxBodyBytes = settings.maxBodyBytes ?? 0;
  const fetch = writtenTogether((request: Request, env: NodeEnv) =>
    settings.fetch(
      env.incoming instanceof IncomingMessage
        ? readDeclaredBodyInOneBuffer(request, env.incoming, maxBodyBytes)
        : request,
      env,
    ),
  );
  const listener = getRequestListener(fetch, {
    hostname: settings.hostname,
    errorHandler: (error) => errorResponse(adapterRefusal(error)),
  });
  const server = createServer(settings.serverOptions ?? {}, listener);
  // Node closes an idle kept-alive connection after 5 s, which races a client reusing it (and
  // proxies that keep theirs 60 s): keep it longer than they do.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  server.on('clientError', answerClientError);
  server.listen(settings.port, settings.hostname, () => {
    listening(server.address() as AddressInfo);
  });
  return server;
}

/** The event loop's next turn, as Node gives it: taken at start, so a test's fake timers keep it. */
const afterThisTurn: (run: () => void) => unknown = setImmediate;

/**
 * `fetch`, its answers handed to the adapter (which writes each to its socket at once) together:
 * the answers made during one turn of the event loop wait, in order, until the turn's I/O
 * callbacks have run (`afterThisTurn`), then are all written back to back. Written one by one,
 * each answer to a client on this machine that was waiting for it paid the kernel's waking of
 * that client inside its `writev`: about 0.06-0.1 ms an answer, a third of the server's CPU on
 * the client mix, against ~0.015 ms for a client kept busy (issue 31 item 1; a bare route
 * slowed to the emulator's pace by a 60 us loop pays the same). Written together, they wake it
 * once. What is answered, and each answer's bytes, do not change; only when it is written, by
 * at most the rest of that turn. A failure is passed on as it comes.
 */
export function writtenTogether<A extends unknown[]>(
  fetch: (...args: A) => Response | Promise<Response>,
  later: (run: () => void) => unknown = afterThisTurn,
): (...args: A) => Promise<Response> {
  // One promise for all the answers of a turn, released once it ends: they go on in the order
  // they began to wait for it, as with one promise each, which cost a promise a request.
  let turn: Promise<void> | undefined;
  const turnEnd = () =>
    (turn ??= new Promise<void>((release) =>
      later(() => {
        turn = undefined;
        release();
      }),
    ));
  return async (...args) => {
    const response = await fetch(...args);
    await turnEnd();
    return response;
  };
}

/** The adapter refuses a request it cannot turn into a `Request`; anything else is ours. */
export function adapterRefusal(error: unknown): ApiError {
  if (error instanceof RequestError) {
    return new ApiError('bad_request', `The request could not be read: ${error.message}.`);
  }
  return new ApiError('internal_error', 'An unexpected error occurred.');
}

function errorResponse(error: ApiError): Response {
  return new Response(JSON.stringify(error.toBody()), {
    status: error.status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** Node's parser codes for what it refuses, with the refusal each gets. */
const CLIENT_ERRORS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'The request headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request was not received in time.'],
};

/**
 * Node answers a request it cannot parse with a bare status line; this writes the Error shape
 * instead (the pattern of Node's own `clientError` documentation), then closes.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [
    'bad_request',
    'The request could not be parsed as HTTP/1.1.',
  ];
  socket.end(rawErrorResponse(new ApiError(code, message)));
}

/** A whole HTTP/1.1 response as bytes, for a socket no `ServerResponse` exists for. */
export function rawErrorResponse(error: ApiError): string {
  const body = JSON.stringify(error.toBody());
  return (
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}
