// `mailtwin serve --delivery-delay-ms <n>`: mail sent to a mailbox here arrives n ms after the
// send answers. No test waits for real time: the emulator's clock is moved by hand (a frozen
// real clock plus the control plane's /clock), or vitest's fake timers stand in for setTimeout.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import type { AppDeps } from '../deps.ts';
import { ControllableClock } from '../clock.ts';
import { LocalDelivery } from './local-delivery.ts';

const FIXED_NOW = Date.parse('2026-11-20T09:30:00.000Z');

interface Listed {
  id: string;
  subject: string;
  receivedAt: string;
}

/**
 * Alice and Bob have mailboxes here (one owner, one key for both); Carol is outside. A webhook
 * of the owner records what reaches it; its host resolves to a public address.
 */
function world(deliveryDelayMs: number, overrides: Partial<AppDeps> = {}) {
  const posted: { emailId: string; mailbox: string }[] = [];
  const deps = defaultDeps({
    deliveryDelayMs,
    clock: new ControllableClock(() => FIXED_NOW), // real time stands still
    resolver: async () => [{ address: '93.184.216.34', family: 4 }],
    connector: async (delivery) => {
      const { data } = JSON.parse(delivery.body.toString('utf8')) as {
        data: { id: string; mailbox: string };
      };
      posted.push({ emailId: data.id, mailbox: data.mailbox });
      return { status: 200 };
    },
    logError: (error) => {
      throw error;
    },
    ...overrides,
  });
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
  const webhook = services.webhooks.create({
    ownerId: owner.id,
    url: 'https://hooks.example.com/mail',
    scope: 'follow-owner',
  }).webhook;
  const app = createApp(deps, services);
  const json = (authorization: string) => ({
    Authorization: `Bearer ${authorization}`,
    'Content-Type': 'application/json',
  });

  const post = async (path: string, body: object) => {
    const response = await app.request(`/openapi/v1${path}`, {
      method: 'POST',
      headers: json(secret),
      body: JSON.stringify(body),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as Listed & { sentAt: string };
  };
  const send = (subject: string, to = 'bob@acme.test') =>
    post('/emails/send', { from: 'alice@acme.test', to, subject, text: 'Hi' });
  const list = async (mailbox: string, folder: 'inbox' | 'sent' = 'inbox') => {
    const query = new URLSearchParams({ mailbox, folder });
    const response = await app.request(`/openapi/v1/emails?${query}`, {
      headers: json(secret),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { emails: Listed[] }).emails;
  };
  const subjects = async (mailbox: string, folder: 'inbox' | 'sent' = 'inbox') =>
    (await list(mailbox, folder)).map((e) => e.subject);
  /** The control plane's clock move, which delivers what fell due before it answers. */
  const advance = async (advanceMs: number) => {
    const response = await app.request('/_mailtwin/v1/clock', {
      method: 'POST',
      headers: json(deps.controlToken),
      body: JSON.stringify({ advanceMs }),
    });
    expect(response.status).toBe(200);
  };
  const webhookDeliveries = () =>
    services.webhooks.deliveries(webhook.id).map((d) => ({ emailId: d.emailId, status: d.status }));
  return { deps, services, app, post, send, list, subjects, advance, posted, webhookDeliveries };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('local delivery without a delay (the default)', () => {
  it('lists mail sent to a mailbox here in its inbox as soon as the send answers', async () => {
    const { services, send, list, webhookDeliveries } = world(0);
    expect(services.deps.deliveryDelayMs).toBe(0);
    await send('Now');
    const [copy] = await list('bob@acme.test');
    expect(copy).toMatchObject({ subject: 'Now', receivedAt: new Date(FIXED_NOW).toISOString() });
    expect(webhookDeliveries().map((d) => d.emailId)).toEqual([copy?.id]);
    expect(services.localDelivery.size).toBe(0);
  });
});

describe('local delivery with --delivery-delay-ms', () => {
  it('does not list the email right after the send answers, and lists it once the clock passes the delay', async () => {
    const { send, subjects, list, advance, webhookDeliveries } = world(5_000);
    const sent = await send('Later');
    expect(await subjects('bob@acme.test')).toEqual([]);
    expect(webhookDeliveries()).toEqual([]);

    await advance(4_999);
    expect(await subjects('bob@acme.test')).toEqual([]);
    expect(webhookDeliveries()).toEqual([]);

    await advance(1);
    const [copy] = await list('bob@acme.test');
    expect(copy).toMatchObject({ subject: 'Later' });
    // D-17: receivedAt is when the copy reached the mailbox; sentAt stays the send's moment.
    expect(copy?.receivedAt).toBe(new Date(FIXED_NOW + 5_000).toISOString());
    expect(sent.sentAt).toBe(new Date(FIXED_NOW).toISOString());
    expect(webhookDeliveries()).toEqual([{ emailId: copy?.id, status: 'succeeded' }]);
  });

  it('fires the email.received webhook of the delayed copy only when it arrives', async () => {
    const { send, advance, list, posted } = world(60_000);
    await send('Hooked');
    await advance(59_999);
    expect(posted).toEqual([]);
    await advance(1);
    const [copy] = await list('bob@acme.test');
    expect(posted).toEqual([{ emailId: copy?.id, mailbox: 'bob@acme.test' }]);
  });

  it.each([0, 5_000])(
    "lists the sender's sent copy as soon as the send answers (delay %i ms)",
    async (delay) => {
      const { send, subjects } = world(delay);
      const sent = await send('Mine');
      expect(await subjects('alice@acme.test', 'sent')).toEqual(['Mine']);
      expect(sent.receivedAt).toBe(new Date(FIXED_NOW).toISOString());
    },
  );

  it('captures mail for addresses outside the emulator in the outbox at once', async () => {
    const { services, send } = world(5_000);
    await send('Out', 'carol@ext.test');
    expect(services.deps.store.outbox.list().map((m) => m.subject)).toEqual(['Out']);
    expect(services.localDelivery.size).toBe(0);
  });

  it('delays replies and forwards to mailboxes here too', async () => {
    const { services, post, subjects, advance } = world(1_000);
    const received = services.inbound.injectJson({
      mailbox: 'alice@acme.test',
      from: 'bob@acme.test',
      to: ['alice@acme.test'],
      subject: 'Question',
      text: '?',
    });
    await post(`/emails/${received.id}/reply`, { text: 'Answer' });
    await post(`/emails/${received.id}/forward`, { to: 'bob@acme.test' });
    expect(await subjects('bob@acme.test')).toEqual([]);
    await advance(1_000);
    expect((await subjects('bob@acme.test')).sort()).toEqual(['Fwd: Question', 'Re: Question']);
  });

  it("never delays the control plane's inbound mail, which stands for mail that already arrived", async () => {
    const { deps, app, subjects } = world(5_000);
    const response = await app.request('/_mailtwin/v1/inbound', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${deps.controlToken}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ mailbox: 'bob@acme.test', from: 'dave@ext.test', subject: 'In' }),
    });
    expect(response.status).toBe(201);
    expect(await subjects('bob@acme.test')).toEqual(['In']);
  });

  it('delivers on its own, with no clock move, once the delay has passed (fake timers)', async () => {
    vi.useFakeTimers({ now: FIXED_NOW, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { send, subjects, services } = world(2_000, {
      clock: new ControllableClock(() => Date.now()),
    });
    await send('Timed');
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(await subjects('bob@acme.test')).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await subjects('bob@acme.test')).toEqual(['Timed']);
    expect(services.localDelivery.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stopping cancels the pending timer and drops mail on its way, so the process can exit', async () => {
    vi.useFakeTimers({ now: FIXED_NOW, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { send, subjects, services } = world(2_000, {
      clock: new ControllableClock(() => Date.now()),
    });
    await send('Lost');
    expect(vi.getTimerCount()).toBe(1);
    services.localDelivery.stop();
    expect(vi.getTimerCount()).toBe(0);
    expect(services.localDelivery.size).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await subjects('bob@acme.test')).toEqual([]);
  });

  it("the control plane's reset drops mail on its way", async () => {
    const { deps, app, services, send } = world(5_000);
    await send('Gone');
    expect(services.localDelivery.size).toBe(1);
    const reset = await app.request('/_mailtwin/v1/reset', {
      method: 'POST',
      headers: { Authorization: `Bearer ${deps.controlToken}` },
    });
    expect(reset.status).toBe(204);
    expect(services.localDelivery.size).toBe(0);
  });
});

describe('the delivery queue', () => {
  it('delivers copies in the order they were sent; one that fails is logged, the others arrive', () => {
    const clock = new ControllableClock(() => FIXED_NOW);
    const logged: unknown[] = [];
    const queue = new LocalDelivery(clock, 100, (error) => logged.push(error));
    const arrived: string[] = [];
    queue.schedule(() => arrived.push('first'));
    queue.schedule(() => {
      throw new Error('broken copy');
    });
    clock.advance(50);
    queue.schedule(() => arrived.push('third'));
    clock.advance(50);
    expect(queue.runDue()).toBe(2);
    expect(arrived).toEqual(['first']);
    expect(logged).toEqual([new Error('broken copy')]);
    clock.advance(50);
    expect(queue.runDue()).toBe(1);
    expect(arrived).toEqual(['first', 'third']);
    queue.stop();
  });

  it('refuses a delay outside 0 to 3600000 ms', () => {
    const clock = new ControllableClock(() => FIXED_NOW);
    for (const delay of [-1, 1.5, 3_600_001, Number.NaN]) {
      expect(() => new LocalDelivery(clock, delay, () => {})).toThrow(RangeError);
    }
  });
});
