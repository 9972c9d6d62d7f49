import { connect } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, defaultDeps } from '../app.ts';
import { serveWithJsonErrors, writtenTogether, type NodeEnv } from './node-server.ts';

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

describe('answers written together (issue 31 item 1)', () => {
  it('hands the answers made in one turn over together once it ends, in order, with one wait', async () => {
    const turns: (() => void)[] = [];
    const handed: string[] = [];
    const fetch = writtenTogether(
      (name: string) => new Response(name),
      (run) => turns.push(run),
    );
    const answers = ['a', 'b', 'c'].map((name) =>
      fetch(name).then(async (r) => handed.push(await r.text())),
    );
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
    expect(handed).toEqual([]);
    expect(turns).toHaveLength(1);
    turns[0]?.();
    await Promise.all(answers);
    expect(handed).toEqual(['a', 'b', 'c']);
  });

  it('passes a failure on as it comes', async () => {
    const fetch = writtenTogether(
      () => Promise.reject(new Error('no')),
      () => undefined,
    );
    await expect(fetch()).rejects.toThrow('no');
  });

  it('writes an answer to its socket after the turn that made it, not within it', async () => {
    const order: string[] = [];
    const answered = new Promise<void>((resolve) => {
      const other = serveWithJsonErrors(
        {
          fetch: (_request: Request, env?: NodeEnv) => {
            const outgoing = (env as { outgoing: NodeJS.EventEmitter }).outgoing;
            outgoing.on('finish', () => {
              order.push('written');
              other.close();
              resolve();
            });
            setImmediate(() => order.push('turn ended'));
            return Promise.resolve(new Response('ok'));
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
    await answered;
    expect(order).toEqual(['turn ended', 'written']);
  });
});
