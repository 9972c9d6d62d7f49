import { execFileSync } from 'node:child_process';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serveWithJsonErrors, type NodeEnv } from './node-server.ts';
import { SETTLING_REQUESTS } from './settle-layouts.ts';

/** Starts a server and resolves once it is announced, with what its app saw by then. */
function started(
  settlePath: string | undefined,
  answer: (path: string) => Response = () => new Response('{}'),
) {
  const seen: { path: string; socket: Socket; inFlight: number }[] = [];
  let inFlight = 0;
  return new Promise<{ server: Server; seen: typeof seen }>((resolve) => {
    const server = serveWithJsonErrors(
      {
        fetch: async (request: Request, env?: NodeEnv) => {
          inFlight += 1;
          const path = new URL(request.url).pathname;
          seen.push({ path, socket: env!.incoming.socket as Socket, inFlight });
          await new Promise((r) => setTimeout(r, 1)); // the answer comes in a later turn
          inFlight -= 1;
          return answer(path);
        },
        port: 0,
        hostname: '127.0.0.1',
        ...(settlePath === undefined ? {} : { settlePath }),
      },
      () => resolve({ server, seen: [...seen] }),
    );
  });
}

const closed = (server: Server) => new Promise((r) => server.close(r));

describe('a server settles its object layouts before it is announced (issue 31 item 1)', () => {
  it('asks its settle path whole requests, one at a time, each on a connection of its own', async () => {
    const { server, seen } = await started('/settle');
    await closed(server);
    expect(SETTLING_REQUESTS).toBeGreaterThanOrEqual(7); // past V8's seventh construction
    expect(seen.map((s) => s.path)).toEqual(Array(SETTLING_REQUESTS).fill('/settle'));
    expect(seen.map((s) => s.inFlight)).toEqual(Array(SETTLING_REQUESTS).fill(1));
    expect(new Set(seen.map((s) => s.socket)).size).toBe(SETTLING_REQUESTS);
  });

  it('asks nothing without a settle path', async () => {
    const { server, seen } = await started(undefined);
    await closed(server);
    expect(seen).toEqual([]);
  });

  it('is announced all the same when the settle path fails', async () => {
    const { server, seen } = await started('/settle', () => {
      throw new Error('broken');
    });
    await closed(server);
    expect(seen.length).toBe(SETTLING_REQUESTS); // a 500 is still a whole request
  });

  // In a process of its own, with V8's natives: after six requests and a full collection (an
  // idle server's memory reducer), are the responses that follow still in fast mode? Without
  // the settling every one of them is in dictionary mode (Node 20).
  it('keeps responses in fast mode after six requests and a full collection', () => {
    const script = `
      import { request } from 'node:http';
      import { serveWithJsonErrors } from ${JSON.stringify(fileURLToPath(new URL('./node-server.ts', import.meta.url)))};
      const fast = new Function('o', 'return %HasFastProperties(o)');
      const get = (port) => new Promise((done) =>
        request({ port, host: '127.0.0.1', path: '/x' }, (r) => r.resume().on('end', done)).end());
      const modes = [];
      const server = serveWithJsonErrors(
        { fetch: () => new Response('{}'), port: 0, hostname: '127.0.0.1', settlePath: '/readyz' },
        async ({ port }) => {
          server.on('request', (_req, res) => modes.push(fast(res)));
          for (let i = 0; i < 6; i += 1) await get(port);
          globalThis.gc();
          for (let i = 0; i < 6; i += 1) await get(port);
          process.stdout.write(JSON.stringify(modes));
          server.close();
          server.closeAllConnections();
        },
      );`;
    const out = execFileSync(
      process.execPath,
      [
        '--allow-natives-syntax',
        '--expose-gc',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual(Array(12).fill(true));
  }, 30_000);
});
