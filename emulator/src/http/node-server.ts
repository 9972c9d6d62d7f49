import {
  createServer,
  IncomingMessage,
  ServerResponse,
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
import { settleObjectLayouts } from './settle-layouts.ts';

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
  /**
   * A path the server asks itself a few times before `listening` is called, so its object
   * layouts are settled before any client's request (settle-layouts.ts); none if absent.
   */
  settlePath?: string;
}

/** What the adapter passes a fetch handler besides the request (Hono's `c.env`). */
export type NodeEnv = HttpBindings | Http2Bindings;

/** How long an idle kept-alive connection stays open: above the 60 s of common proxies. */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * `@hono/node-server`'s `serve()`, except that requests refused before they reach the app get
 * the Error shape too (§7): the adapter's own refusals (a bad `Host`, a backslash in the path)
 * through its `errorHandler` hook, which `serve()` does not expose, and Node's parser
 * refusals (malformed request line, headers too large) through the server's `clientError`.
 * The answers made in one turn of the event loop are written together once it ends
 * (`endedTogether`).
 */
export function serveWithJsonErrors(
  settings: ServeSettings,
  listening: (info: AddressInfo) => void,
): Server {
  const maxBodyBytes = settings.maxBodyBytes ?? 0;
  // Not async: an answer the app makes at once is handed back as it is, so the adapter writes
  // it at once (its own path for an answer ready on return) into a response whose end waits
  // for the turn (endedTogether), instead of awaiting it through layers of promises.
  const fetch = (request: Request, env: NodeEnv) =>
    settings.fetch(
      env.incoming instanceof IncomingMessage
        ? readDeclaredBodyInOneBuffer(request, env.incoming, maxBodyBytes)
        : request,
      env,
    );
  const listener = getRequestListener(fetch, {
    hostname: settings.hostname,
    errorHandler: (error) => errorResponse(adapterRefusal(error)),
  });
  const server = createServer(
    { ServerResponse: endedTogether(), ...settings.serverOptions },
    listener,
  );
  // Node closes an idle kept-alive connection after 5 s, which races a client reusing it (and
  // proxies that keep theirs 60 s): keep it longer than they do.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  server.on('clientError', answerClientError);
  server.listen(settings.port, settings.hostname, () => {
    const address = server.address() as AddressInfo;
    if (settings.settlePath === undefined) listening(address);
    else void settleObjectLayouts(address, settings.settlePath).then(() => listening(address));
  });
  return server;
}

/** The event loop's next turn, as Node gives it: taken at start, so a test's fake timers keep it. */
const afterThisTurn: (run: () => void) => unknown = setImmediate;

/**
 * A `ServerResponse` whose answers, ended during one turn of the event loop, are written once
 * the turn's I/O callbacks have run (`later`), in the order they were ended, back to back.
 * Written one by one, each answer to a client on this machine that was waiting for it paid the
 * kernel's waking of that client inside its `writev`: about 0.06-0.1 ms an answer, a third of
 * the server's CPU on the client mix, against ~0.015 ms for a client kept busy (issue 31 item
 * 1; a bare route slowed to the emulator's pace by a 60 us loop pays the same). Written
 * together, they wake it once. What is answered, and each answer's bytes, do not change; only
 * when it is written, by at most the rest of that turn. Waiting at the response's end, rather
 * than behind a promise the adapter awaits, lets the adapter take an answer the app made at
 * once on its own path for one (no promise, no close handler, no async layer a request).
 */
export function endedTogether(
  later: (run: () => void) => unknown = afterThisTurn,
): typeof ServerResponse {
  // The responses waiting, each followed by the three arguments its `end` was given.
  let waiting: unknown[] = [];
  const end = ServerResponse.prototype.end as (this: ServerResponse, ...args: unknown[]) => void;
  const endAll = () => {
    const ended = waiting;
    waiting = [];
    for (let i = 0; i < ended.length; i += 4) {
      end.call(ended[i] as ServerResponse, ended[i + 1], ended[i + 2], ended[i + 3]);
    }
  };
  class TurnEndedResponse extends ServerResponse {
    override end(chunk?: unknown, encoding?: unknown, callback?: unknown): this {
      if (waiting.length === 0) later(endAll);
      waiting.push(this, chunk, encoding, callback);
      return this;
    }
  }
  return TurnEndedResponse as typeof ServerResponse;
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
