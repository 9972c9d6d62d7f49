import { connect, Socket } from 'node:net';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, defaultDeps } from '../app.ts';
import { endedTogether, serveWithJsonErrors, type NodeEnv } from './node-server.ts';

let server: Server;
let port: number;

beforeAll(async () => {
  const app = createApp(defaultDeps({ logError: () => {} }));
  await new Promise<void>((resolve) => {
    server = serveWithJsonErrors(
      {
        fetch: app.fetch,
        port: 0,
        hostname: '127.0.0.1',
        serverOptions: { maxHeaderSize: 16 * 1024 },
      },
      (info) => {
        port = info.port;
        resolve();
      },
    );
  });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends bytes exactly as given (no client library normalises them) and reads to the end. */
function raw(request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
    socket.write(request);
  });
}

function expectErrorShape(body: string, code: string) {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  expect(Object.keys(parsed).sort()).toEqual(['code', 'message']);
  expect(parsed.code).toBe(code);
  expect(typeof parsed.message).toBe('string');
}

describe('requests refused before they reach the app get the Error shape (§7)', () => {
  it('answers a backslash in the path with 400 bad_request as JSON', async () => {
    const answer = await raw(
      'GET /openapi/v1/emails/a\\b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    expect(answer.status).toBe(400);
    expect(answer.headers).toMatch(/content-type: application\/json/i);
    expectErrorShape(answer.body, 'bad_request');
    expect(JSON.parse(answer.body).message).toMatch(/Backslash/);
  });

  it('answers a bad Host header with 400 bad_request as JSON', async () => {
    const answer = await raw(
      'GET /openapi/v1/mailboxes HTTP/1.1\r\nHost: a/b@c\r\nConnection: close\r\n\r\n',
    );
    expect(answer.status).toBe(400);
    expectErrorShape(answer.body, 'bad_request');
  });

  it('answers a request line that is not HTTP with 400 bad_request as JSON', async () => {
    const answer = await raw('HELLO THERE\r\n\r\n');
    expect(answer.status).toBe(400);
    expectErrorShape(answer.body, 'bad_request');
  });

  it('answers headers over the limit with 431 headers_too_large as JSON', async () => {
    const answer = await raw(
      `GET /openapi/v1/mailboxes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expectErrorShape(answer.body, 'headers_too_large');
  });

  it('still serves ordinary requests, and the app’s own errors', async () => {
    const answer = await raw(
      'GET /openapi/v1/mailboxes HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    expect(answer.status).toBe(401);
    expectErrorShape(answer.body, 'missing_api_key');
  });
});

describe('kept-alive connections', () => {
  it('keeps an idle connection 65 s, longer than common proxies, so no client reuses a closing one', () => {
    expect(server.keepAliveTimeout).toBe(65_000);
    // Node requires the header deadline to exceed the keep-alive one.
    expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
  });
});

/** A response to a request on no socket, of the class `Response`. */
function responseOf(Response: typeof ServerResponse): ServerResponse {
  return new Response(new IncomingMessage(new Socket()));
}

/**
 * Serves one request whose answer `fetch` makes (at once, or as a promise) and records, in
 * order: the adapter writing its head ('head'), the microtasks queued meanwhile having run
 * ('microtask'), the turn ending ('turn ended') and the answer's bytes handed to the socket
 * ('written').
 */
function orderOfOneAnswer(answer: () => Response | Promise<Response>): Promise<string[]> {
  const order: string[] = [];
  return new Promise((resolve) => {
    const other = serveWithJsonErrors(
      {
        fetch: (_request: Request, env?: NodeEnv) => {
          const outgoing = (env as { outgoing: ServerResponse }).outgoing;
          const writeHead = outgoing.writeHead.bind(outgoing) as (...args: unknown[]) => unknown;
          outgoing.writeHead = ((...args: unknown[]) => {
            order.push('head');
            return writeHead(...args);
          }) as ServerResponse['writeHead'];
          type Writes = Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
          const socket = outgoing.socket as unknown as Writes;
          for (const name of ['_write', '_writev'] as const) {
            const write = socket[name].bind(socket);
            socket[name] = (...args) => {
              if (!order.includes('written')) order.push('written');
              return write(...args);
            };
          }
          outgoing.on('finish', () => {
            other.close();
            resolve(order);
          });
          queueMicrotask(() => order.push('microtask'));
          setImmediate(() => order.push('turn ended'));
          return answer();
        },
        port: 0,
        hostname: '127.0.0.1',
      },
      (info) => {
        const socket = connect(info.port, '127.0.0.1');
        socket.on('data', () => socket.end());
        socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      },
    );
  });
}

describe('answers written together (issue 31 item 1)', () => {
  it('ends the answers of one turn together once it ends, in the order they were ended, with one wait', () => {
    const end = vi.spyOn(ServerResponse.prototype, 'end');
    try {
      const turns: (() => void)[] = [];
      const Response = endedTogether((run) => turns.push(run));
      const [a, b, c] = [responseOf(Response), responseOf(Response), responseOf(Response)];
      const done = () => undefined;
      expect(a?.end('a')).toBe(a);
      c?.end('c', 'utf8', done);
      b?.end();
      expect(end).not.toHaveBeenCalled();
      expect([a, b, c].map((r) => r?.writableEnded)).toEqual([false, false, false]);
      expect(turns).toHaveLength(1);
      turns[0]?.();
      expect(end.mock.contexts).toEqual([a, c, b]);
      expect(end.mock.calls).toEqual([
        ['a', undefined, undefined],
        ['c', 'utf8', done],
        [undefined, undefined, undefined],
      ]);
      expect([a, b, c].map((r) => r?.writableEnded)).toEqual([true, true, true]);
      // The next turn's answers wait for a turn of their own.
      responseOf(Response).end('d');
      expect(turns).toHaveLength(2);
    } finally {
      end.mockRestore();
    }
  });

  it('writes an answer made at once into its response at once, and to its socket after the turn', async () => {
    // No promise between the app's answer and the adapter: the head is written before the
    // microtasks queued while answering run (an async layer would write it after them).
    expect(await orderOfOneAnswer(() => new Response('ok'))).toEqual([
      'head',
      'microtask',
      'turn ended',
      'written',
    ]);
  });

  it('writes a promised answer to its socket after the turn that made it, not within it', async () => {
    expect(await orderOfOneAnswer(() => Promise.resolve(new Response('ok')))).toEqual([
      'microtask',
      'head',
      'turn ended',
      'written',
    ]);
  });

  it('passes a failure on as it comes: the adapter answers it with the Error shape', async () => {
    const answer = await new Promise<string>((resolve) => {
      const other = serveWithJsonErrors(
        {
          fetch: () => Promise.reject(new Error('no')),
          port: 0,
          hostname: '127.0.0.1',
        },
        (info) => {
          const socket = connect(info.port, '127.0.0.1');
          const chunks: Buffer[] = [];
          socket.on('data', (chunk) => chunks.push(chunk));
          socket.on('end', () => {
            other.close();
            resolve(Buffer.concat(chunks).toString('utf8'));
          });
          socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
        },
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 500 /);
    expectErrorShape(answer.split('\r\n\r\n')[1] ?? '', 'internal_error');
  });
});
