// `mailtwin listen` and `mailtwin trigger` against an emulator listening on loopback (issue 17
// item 4): the delivery reaches the --forward-to receiver with its signature intact.
import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook } from '../../../webhooks/index.js';
import { createApp, createServices, defaultDeps } from '../app.ts';
import type { Services } from '../deps.ts';
import { main } from '../main.ts';
import { ControlError } from './control-connection.ts';
import { serveWithJsonErrors } from '../http/node-server.ts';
import {
  LISTEN_HELP,
  MAX_ANSWER_BYTES,
  forwardDelivery,
  parseListenOptions,
  runListen,
} from './listen.ts';
import { parseTriggerOptions, runTrigger } from './trigger.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const close = (server: Server) => () =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** An emulator on a loopback port, with one owner, a mailbox, and loopback webhooks allowed. */
async function emulator(allowLoopbackWebhooks = true) {
  const deps = defaultDeps({ logError: () => {}, allowLoopbackWebhooks });
  const services: Services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  services.directory.createMailbox({ address: 'hello@acme.test' });
  services.directory.grant(owner.id, 'hello@acme.test');
  const app = createApp(deps, services);
  const server = await new Promise<Server>((resolve) => {
    const s = serveWithJsonErrors({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
      resolve(s),
    );
  });
  services.dispatcher.start();
  closers.push(async () => services.dispatcher.stop());
  closers.push(close(server));
  const env = {
    MAILTWIN_CONTROL_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/_mailtwin/v1`,
    MAILTWIN_CONTROL_TOKEN: deps.controlToken,
  };
  return { services, owner, env };
}

/** The app a developer runs: it records what reaches it and answers `status`. */
async function receiver(status = 200) {
  const received: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }[] =
    [];
  const waiting: (() => void)[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method!,
        url: request.url!,
        headers: request.headers,
        body: Buffer.concat(chunks),
      });
      response.writeHead(status).end();
      waiting.splice(0).forEach((wake) => wake());
    });
  });
  const port = await listening(server);
  closers.push(close(server));
  const next = () => new Promise<void>((resolve) => waiting.push(resolve));
  return { url: `http://127.0.0.1:${port}/hooks`, received, next };
}

/** Generous: each wait ends on an event long before; the bound only stops a broken run. */
const POLL = { timeout: 30_000, interval: 20 };

describe('mailtwin listen and trigger', () => {
  it('forwards a triggered email.received to the local URL with its signature intact, then deletes its webhook', async () => {
    const { services, env } = await emulator();
    const app = await receiver(204);
    const lines: string[] = [];
    const stop = new AbortController();
    const options = parseListenOptions(['--forward-to', app.url], env);
    if (options === 'help') throw new Error('unexpected help');
    const secretPrinted = new Promise<string>((resolve) => {
      const running = runListen(
        options,
        (line) => {
          lines.push(line);
          const secret = /^MAILTWIN_WEBHOOK_SECRET=(whsec_\S+)$/.exec(line)?.[1];
          if (secret !== undefined) resolve(secret);
        },
        stop.signal,
      );
      closers.push(async () => {
        stop.abort();
        await running;
      });
    });
    const secret = await secretPrinted;
    expect(services.webhooks.list()).toHaveLength(1);

    const trigger = parseTriggerOptions(
      ['email.received', '--mailbox', 'hello@acme.test', '--subject', 'Ping'],
      env,
    );
    if (trigger === 'help') throw new Error('unexpected help');
    const arrived = app.next();
    const said = await runTrigger(trigger);
    expect(said).toMatch(/^email\.received: \S+ in hello@acme\.test \("Ping"\)$/);
    await arrived;

    const [delivery] = app.received;
    expect(delivery?.method).toBe('POST');
    expect(delivery?.url).toBe('/hooks');
    const verified = verifyWebhook({ secret, headers: delivery!.headers, rawBody: delivery!.body });
    expect(verified.event).toBe('email.received');
    expect(JSON.parse(delivery!.body.toString()).data.subject).toBe('Ping');
    await expect
      .poll(() => lines.some((l) => / email\.received \S+ → .*: 204 \(\d+ ms\)$/.test(l)), POLL)
      .toBe(true);

    stop.abort();
    await expect.poll(() => services.webhooks.list().length, POLL).toBe(0);
    await expect.poll(() => lines.at(-1), POLL).toMatch(/^Deleted webhook /);
  }, 60_000);

  it('says to allow loopback webhooks when the emulator refuses the relay', async () => {
    const { env } = await emulator(false);
    const options = parseListenOptions(['--forward-to', 'http://127.0.0.1:9/hooks'], env);
    if (options === 'help') throw new Error('unexpected help');
    await expect(runListen(options, () => {}, new AbortController().signal)).rejects.toThrow(
      /--allow-loopback-webhooks/,
    );
  });

  it('names what is missing or wrong in one line: no emulator, a bad URL, a wrong token, an unknown mailbox', async () => {
    expect(() => parseListenOptions(['--forward-to', 'http://x.test/'], {})).toThrow(
      /give --url, or load the banner lines/,
    );
    expect(() => parseListenOptions([], {})).toThrow('--forward-to <url> is required');
    expect(() =>
      parseTriggerOptions(['email.sent', '--mailbox', 'a@b.c'], {
        MAILTWIN_CONTROL_URL: 'http://x',
        MAILTWIN_CONTROL_TOKEN: 't',
      }),
    ).toThrow(/give the event to trigger: email\.received/);
    const { env } = await emulator();
    const wrongToken = parseTriggerOptions(['email.received', '--mailbox', 'hello@acme.test'], {
      ...env,
      MAILTWIN_CONTROL_TOKEN: 'not-the-token',
    });
    if (wrongToken === 'help') throw new Error('unexpected help');
    await expect(runTrigger(wrongToken)).rejects.toThrow(/control token is not accepted .*\(401\)/);
    const unknown = parseTriggerOptions(['email.received', '--mailbox', 'nobody@acme.test'], env);
    if (unknown === 'help') throw new Error('unexpected help');
    await expect(runTrigger(unknown)).rejects.toThrow(ControlError);
    await expect(runTrigger(unknown)).rejects.toMatchObject({ code: 'mailbox_not_found' });
  });

  it('reports a refusal of the emulator as a failed run (exit 1) with its code, not as a usage error', async () => {
    const { env } = await emulator();
    const stderr: string[] = [];
    const write = vi
      .spyOn(process.stderr, 'write')
      .mockImplementation((chunk) => (stderr.push(String(chunk)), true));
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      const status = await main(['trigger', 'email.received', '--mailbox', 'nobody@acme.test']);
      expect(status).toBe(1);
    } finally {
      write.mockRestore();
      for (const name of Object.keys(env)) delete process.env[name];
      Object.assign(process.env, saved);
    }
    expect(stderr.join('')).toMatch(/^mailtwin trigger: .*\(mailbox_not_found\)\n$/);
    expect(stderr.join('')).not.toContain('--help');
  });

  it('prints each delivery on the emulator clock, which the signature carries, not the real one', async () => {
    const { services, env } = await emulator();
    const app = await receiver(204);
    services.deps.clock.advance(30 * 86_400_000);
    const lines: string[] = [];
    const stop = new AbortController();
    const options = parseListenOptions(['--forward-to', app.url], env);
    if (options === 'help') throw new Error('unexpected help');
    const started = new Promise<void>((resolve) => {
      const running = runListen(
        options,
        (line) => (lines.push(line), line.startsWith('MAILTWIN_WEBHOOK_SECRET=') && resolve()),
        stop.signal,
      );
      closers.push(async () => (stop.abort(), await running));
    });
    await started;
    const trigger = parseTriggerOptions(['email.received', '--mailbox', 'hello@acme.test'], env);
    if (trigger === 'help') throw new Error('unexpected help');
    const arrived = app.next();
    await runTrigger(trigger);
    await arrived;
    const delivered = (l: string) => /^\S+Z email\.received /.test(l);
    await expect.poll(() => lines.some(delivered), POLL).toBe(true);
    const line = lines.find(delivered)!;
    const printed = Date.parse(line.split(' ')[0]!);
    const signed = Date.parse(String(app.received[0]!.headers['x-service-timestamp']));
    // Generous: both are read moments apart; the real clock is 30 days behind.
    expect(Math.abs(printed - signed)).toBeLessThan(60_000);
    expect(printed - Date.now()).toBeGreaterThan(29 * 86_400_000);
  }, 60_000);

  it('takes --forward-timeout-ms (10000 by default) and documents it', () => {
    const env = { MAILTWIN_CONTROL_URL: 'http://127.0.0.1:1', MAILTWIN_CONTROL_TOKEN: 't' };
    const parse = (argv: string[]) =>
      parseListenOptions(['--forward-to', 'http://x.test/', ...argv], env);
    expect(parse([])).toMatchObject({ forwardTimeoutMs: 10_000 });
    expect(parse(['--forward-timeout-ms', '250'])).toMatchObject({ forwardTimeoutMs: 250 });
    for (const bad of ['0', '-1', '1.5', 'x', '12345678'])
      expect(() => parse([`--forward-timeout-ms=${bad}`])).toThrow(
        /^--forward-timeout-ms must be an integer from 1 to 9999999/,
      );
    expect(LISTEN_HELP).toContain('--forward-timeout-ms <n>');
    expect(LISTEN_HELP).toContain('1 MiB');
  });
});

/** A receiver that never stops answering, or never answers; it counts what it did. */
async function misbehaving(kind: 'endless' | 'silent') {
  const seen = { requests: 0, closed: 0, bytesWritten: 0 };
  const server = createServer((request, response) => {
    seen.requests += 1;
    response.on('close', () => (seen.closed += 1));
    request.resume();
    if (kind === 'silent') return;
    response.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 120);
    const pump = () => {
      while (!response.destroyed) {
        seen.bytesWritten += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
    };
    pump();
  });
  const port = await listening(server);
  closers.push(close(server));
  return { url: `http://127.0.0.1:${port}/hooks`, seen };
}

const DELIVERY = { headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') };

describe('mailtwin listen bounds what a receiver can make it hold (issue 27 item 5)', () => {
  it('passes on at most 1 MiB of an endless answer and drops the connection', async () => {
    const target = await misbehaving('endless');
    const outcome = await forwardDelivery(DELIVERY, target.url, {
      timeoutMs: 60_000,
      maxAnswerBytes: MAX_ANSWER_BYTES,
    });
    expect(outcome.status).toBe(200);
    expect((outcome.body as Uint8Array).byteLength).toBe(MAX_ANSWER_BYTES);
    expect(outcome.summary).toMatch(
      /^200 \(\d+ ms; answer cut at 1048576 bytes, the rest not read\)$/,
    );
    await expect.poll(() => target.seen.closed, POLL).toBe(1);
    console.log(
      `endless receiver: wrote ${target.seen.bytesWritten} bytes before listen dropped it`,
    );
  }, 30_000);

  it('gives up on receivers that never answer after the time-out, each with 504, and closes them all', async () => {
    const target = await misbehaving('silent');
    // Each time-out starts once all 17 requests reached the receiver, however slow the machine.
    const allArrived = expect.poll(() => target.seen.requests, POLL).toBe(17);
    const startTimer = (onTimeout: () => void, ms: number) => {
      let timer: NodeJS.Timeout | undefined;
      let cancelled = false;
      void allArrived.then(() => {
        if (!cancelled) timer = setTimeout(onTimeout, ms);
      });
      return () => {
        cancelled = true;
        clearTimeout(timer);
      };
    };
    const started = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: 17 }, () =>
        forwardDelivery(DELIVERY, target.url, {
          timeoutMs: 300,
          maxAnswerBytes: MAX_ANSWER_BYTES,
          startTimer,
        }),
      ),
    );
    const ms = Math.round(performance.now() - started);
    console.log(`17 forwards to a silent receiver, time-out 300 ms: all settled in ${ms} ms`);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe(504);
      expect(outcome.summary).toBe(
        'no answer within 300 ms (--forward-timeout-ms); the emulator gets 504',
      );
    }
    expect(target.seen.requests).toBe(17);
    await expect.poll(() => target.seen.closed, POLL).toBe(17);
  }, 30_000);
});

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('mailtwin listen under npx (issue 27 item 6)', () => {
  it.each(['SIGKILL', 'SIGTERM'] as const)(
    'deletes its webhook and exits when npx gets %s',
    async (signal) => {
      const { services, env } = await emulator();
      const child = spawn(
        'npm',
        [
          'exec',
          '--offline',
          // Run for the checkout's own bin, npm exec otherwise runs its `prepare` (npm run build)
          // in the checkout the first time on a machine, writing dist/ again under whatever runs
          // from it meanwhile (api-world.test.ts's suite, in a fresh CI).
          '--ignore-scripts',
          '--',
          'mailtwin',
          'listen',
          '--forward-to',
          'http://127.0.0.1:9/hooks',
        ],
        {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, ...env, npm_config_update_notifier: 'false' },
        },
      );
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const outputClosed = new Promise<void>((resolve) => child.stdout.once('close', resolve));
      closers.push(async () => {
        child.kill('SIGKILL');
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('MAILTWIN_WEBHOOK_SECRET=')) resolve();
        });
        child.once('exit', () => reject(new Error(`npx exited first:\n${stdout}\n${stderr}`)));
      });
      expect(services.webhooks.list()).toHaveLength(1);
      child.kill(signal);
      // listen's end closes the output it shares with npx and its shell.
      await outputClosed;
      expect(services.webhooks.list()).toHaveLength(0);
      expect(stdout).toMatch(/\nDeleted webhook wh_\S+\n$/);
      if (signal === 'SIGKILL')
        expect(stderr).toMatch(/mailtwin listen: its launcher \(pid \d+\) went away, stopping/);
    },
    90_000,
  );
});
