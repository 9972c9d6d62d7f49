import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import { sharedRenderPool } from '../mime/render-pool.ts';
import { watchLongestTurn } from '../test-helpers/loop-cpu.ts';
import { sendFromThread } from '../test-helpers/thread-client.ts';
import { serveWithJsonErrors } from './node-server.ts';

/**
 * Issue 27 item 1, end to end over a real socket (the Node adapter, the body read, the render
 * threads, the store): while the worst sends run, the event loop that answers every other
 * request is never held long. The target is a concurrent GET /mailboxes within 100 ms; what is
 * asserted is the CPU time of the longest turn of the event loop (which no other request can
 * interrupt), under 250 ms: CPU time, because a loaded machine stretches wall time many times
 * over (figures printed; `npm run bench -- stall` measures the GET's wall time from another
 * process). Before this round: 0.35-1.5 s to copy a 24 MB body, up to 3.7 s of CPU to index
 * one body.
 */
const MAX_BODY = 25 * 1024 * 1024;
let server: Server;
let port: number;
let auth: Record<string, string>;

beforeAll(async () => {
  const deps = defaultDeps({ logError: () => {}, maxRequestBytes: MAX_BODY });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  for (const address of ['alice@acme.test', 'bob@acme.test']) {
    services.directory.createMailbox({ address });
    services.directory.grant(owner.id, address);
  }
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'app',
    scope: 'follow-owner',
  });
  auth = { Authorization: `Bearer ${secret}` };
  const app = createApp(deps, services);
  port = await new Promise<number>((resolve) => {
    server = serveWithJsonErrors(
      { fetch: app.fetch, port: 0, hostname: '127.0.0.1', maxBodyBytes: MAX_BODY },
      (info: AddressInfo) => resolve(info.port),
    );
  });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await sharedRenderPool.close();
});

const UPLOAD = 'multipart/form-data; boundary=concurrentget';

/** §4.9: one file of `size` bytes as multipart/form-data. */
const upload = (size: number) =>
  Buffer.concat([
    Buffer.from(
      '--concurrentget\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n' +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    Buffer.alloc(size, 7),
    Buffer.from('\r\n--concurrentget--\r\n'),
  ]);

const sendBody = (fields: object) =>
  Buffer.from(
    JSON.stringify({ from: 'alice@acme.test', to: 'bob@acme.test', subject: 'S', ...fields }),
  );

describe('one request never stalls the others (issue 27 item 1)', () => {
  it('keeps every turn of the event loop under 250 ms of CPU while 24 MB and 4-5 MB sends and a 3 MiB upload run', async () => {
    // Built before measuring: making a 24 MB string costs this thread too.
    const cases: [string, Buffer, number, string?, string?][] = [
      ['24 MB text (refused)', sendBody({ text: 'x'.repeat(24_000_000) }), 400],
      ['4.9 MB of words (stored and indexed)', sendBody({ text: 'word '.repeat(980_000) }), 201],
      [
        '4 MB of distinct words (stored and indexed)',
        sendBody({
          text: Array.from({ length: 500_000 }, (_, i) => (i * 7919 + 1e6).toString(36)).join(' '),
        }),
        201,
      ],
      ['3 MiB upload (stored)', upload(3 * 1024 * 1024), 201, '/openapi/v1/attachments', UPLOAD],
    ];
    // Warm: the validator compiles and the render threads start once per process.
    expect(
      (await sendFromThread({ port, auth, body: sendBody({ text: 'w '.repeat(40_000) }) })).status,
    ).toBe(201);
    const lines: string[] = [];
    let worst = 0;
    for (const [name, body, status, path, type] of cases) {
      const histogram = monitorEventLoopDelay({ resolution: 10 });
      histogram.enable();
      const turns = watchLongestTurn();
      const answer = await sendFromThread({ port, auth, body, path, type });
      const longestTurnCpuMs = turns.stop();
      histogram.disable();
      expect(answer.status, answer.text).toBe(status);
      worst = Math.max(worst, longestTurnCpuMs ?? 0);
      lines.push(
        `${name}: longest turn of the event loop ${longestTurnCpuMs?.toFixed(1) ?? '(unmeasured)'} ms of CPU; ` +
          `wall clock (stretched by the machine's load): event-loop delay max ` +
          `${(histogram.max / 1e6).toFixed(0)} ms, slowest GET ${answer.slowestGet.toFixed(0)} ms`,
      );
    }
    console.log(lines.join('\n'));
    // Generous: two and a half times the 100 ms target, in CPU time (which still varies with
    // the load). The 4.9 MB send held one turn for 130 to 300 ms of CPU while it stored every
    // copy and wrote its answer as a string in that turn; split (send-persistence.ts, the
    // answer's bytes) it measured 75 ms, the upload 101 ms and the distinct words 84 ms at a
    // load average of 15. Before the last round the 4 MB of distinct words took 2.3 to 3.7 s of
    // CPU in one turn (indexing it). Exact guards: send-persistence.test.ts, attachments.test.ts,
    // dispatcher-payload.test.ts, json-body.test.ts, declared-body.test.ts, search-text.test.ts.
    expect(worst).toBeLessThan(250);
  }, 300_000);
});
