// Chaos rules on the SMTP ingress's stages (issue 30 item 3), over a real socket on loopback:
// the seed decides which steps fail, the latency goes through the injected sleep.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import { ControllableClock } from '../clock.ts';
import { startSmtpIngress, type SmtpIngress } from '../smtp/smtp-ingress.ts';
import { ruleSeed, seededRandom } from './random.ts';
import type { ChaosRuleSetInput } from './rules.ts';

const started: SmtpIngress[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const ingress of started.splice(0)) await ingress.close();
});

/** An emulator with one mailbox, chaos armed with `rules`, and its SMTP ingress on a free port. */
async function world(rules: ChaosRuleSetInput) {
  const clock = new ControllableClock(() => Date.parse('2026-11-20T09:00:00.000Z'));
  const slept: number[] = [];
  const deps = defaultDeps({
    clock,
    logError: () => {},
    sleep: async (ms) => {
      slept.push(ms);
      clock.advance(ms);
    },
  });
  const services = createServices(deps);
  services.directory.createMailbox({ address: 'alice@acme.test' });
  services.chaos.arm(rules);
  const ingress = await startSmtpIngress(
    {
      store: deps.store,
      inbound: services.inbound,
      chaos: services.chaos,
      maxMessageBytes: 1024 * 1024,
    },
    '127.0.0.1',
    0,
  );
  started.push(ingress);
  const inbox = () => deps.store.emails.list({ mailbox: 'alice@acme.test', folder: 'inbox' }, 100);
  return { services, ingress, slept, clock, inbox };
}

/** A bare client: `reply()` is the next final reply line, '(closed)' once the server hung up. */
function client(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  sockets.push(socket);
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let partial = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => {
    const parts = (partial + text).split('\r\n');
    partial = parts.pop()!;
    for (const line of parts.filter((l) => /^\d{3} /.test(l))) {
      const next = waiting.shift();
      if (next) next(line);
      else lines.push(line);
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    closed = true;
    for (const next of waiting.splice(0)) next('(closed)');
  });
  const reply = () =>
    new Promise<string>((resolve) => {
      const line = lines.shift();
      if (line !== undefined) resolve(line);
      else if (closed) resolve('(closed)');
      else waiting.push(resolve);
    });
  const command = (line: string) => {
    socket.write(`${line}\r\n`);
    return reply();
  };
  return { reply, command };
}

const MESSAGE = 'From: carol@partner.test\r\nTo: alice@acme.test\r\nSubject: Hi\r\n\r\nHello.\r\n.';

const code = (line: string) => Number(line.slice(0, 3));

function expectedFirings(seed: number, probability: number, n: number): boolean[] {
  const random = seededRandom(ruleSeed(seed, 0));
  return Array.from({ length: n }, () => random() < probability);
}

/** 24 RCPT commands in one session under a greylisting rule; the reply codes. */
async function greylistedRcpts(seed: number): Promise<number[]> {
  const { ingress, services } = await world({
    seed,
    rules: [
      {
        surface: 'smtp',
        stage: 'rcpt',
        probability: 0.4,
        reply: { code: 451, text: '4.7.1 Greylisted, try again later' },
      },
    ],
  });
  const smtp = client(ingress.port);
  expect(code(await smtp.reply())).toBe(220);
  expect(code(await smtp.command('EHLO client.test'))).toBe(250);
  expect(code(await smtp.command('MAIL FROM:<carol@partner.test>'))).toBe(250);
  const codes: number[] = [];
  for (let i = 0; i < 24; i += 1) {
    const line = await smtp.command('RCPT TO:<alice@acme.test>');
    if (code(line) === 451) expect(line).toBe('451 4.7.1 Greylisted, try again later');
    codes.push(code(line));
  }
  expect(services.chaos.list().rules[0]).toMatchObject({
    matched: 24,
    fired: codes.filter((c) => c === 451).length,
  });
  return codes;
}

describe('chaos rules on SMTP stages', () => {
  it('refuses RCPT with the rule reply as often as the seed decides, and replays', async () => {
    const codes = await greylistedRcpts(7);
    expect(codes).toEqual(expectedFirings(7, 0.4, 24).map((fires) => (fires ? 451 : 250)));
    const refused = codes.filter((c) => c === 451).length;
    expect(refused).toBeGreaterThan(3);
    expect(refused).toBeLessThan(20);
    expect(await greylistedRcpts(7), 'the same seed, the same outcomes').toEqual(codes);
  });

  it('refuses connections at the greeting and closes them, as the seed decides', async () => {
    const { ingress } = await world({
      seed: 3,
      rules: [{ surface: 'smtp', stage: 'connect', probability: 0.5, reply: { code: 421 } }],
    });
    const greetings: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const smtp = client(ingress.port);
      const greeting = await smtp.reply();
      greetings.push(code(greeting));
      if (code(greeting) === 421) {
        expect(greeting).toMatch(/^421 4\.3\.0 Injected failure \(chaos rule chr_/);
        expect(await smtp.reply()).toBe('(closed)');
      } else {
        await smtp.command('QUIT');
      }
    }
    expect(greetings).toEqual(expectedFirings(3, 0.5, 10).map((fires) => (fires ? 421 : 220)));
  });

  it('refuses a whole message at DATA: nothing is delivered', async () => {
    const { ingress, inbox } = await world({
      seed: 1,
      rules: [{ surface: 'smtp', stage: 'data', reply: { code: 554 } }],
    });
    const smtp = client(ingress.port);
    await smtp.reply();
    await smtp.command('EHLO client.test');
    await smtp.command('MAIL FROM:<carol@partner.test>');
    expect(code(await smtp.command('RCPT TO:<alice@acme.test>'))).toBe(250);
    expect(code(await smtp.command('DATA'))).toBe(354);
    const line = await smtp.command(MESSAGE);
    expect(line).toMatch(/^554 5\.3\.0 Injected failure/);
    expect(inbox().emails).toEqual([]);
  });

  it('adds latency to MAIL through the injected sleep, then answers as usual', async () => {
    const { ingress, slept, clock, inbox } = await world({
      seed: 1,
      rules: [{ surface: 'smtp', stage: 'mail', latencyMs: 1500 }],
    });
    const smtp = client(ingress.port);
    await smtp.reply();
    await smtp.command('EHLO client.test');
    expect(slept).toEqual([]);
    expect(code(await smtp.command('MAIL FROM:<carol@partner.test>'))).toBe(250);
    expect(slept).toEqual([1500]);
    expect(clock.offset).toBe(1500);
    await smtp.command('RCPT TO:<alice@acme.test>');
    await smtp.command('DATA');
    expect(code(await smtp.command(MESSAGE))).toBe(250);
    expect(slept, 'RCPT and DATA are other stages').toEqual([1500]);
    expect(inbox().emails).toHaveLength(1);
  });
});
