/**
 * §2.5, §3.2 and §6 over a real receiver on loopback: what is delivered, to whom, signed how,
 * retried when, paused when. Signatures are checked twice: with an independent HMAC here and
 * with mailtwin/webhooks, using `now` from the deployment's clock.
 */
import { createHmac } from 'node:crypto';
import { verifyWebhook } from 'mailtwin/webhooks';
import { expect } from 'vitest';
import { rule } from '../src/check.ts';
import { ControlClient, createTenant } from '../src/control-client.ts';
import { WebhookReceiver, type ReceivedDelivery } from '../src/webhook-receiver.ts';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function header(delivery: ReceivedDelivery, name: string): string {
  const value = delivery.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

async function withReceiver<T>(run: (receiver: WebhookReceiver) => Promise<T>): Promise<T> {
  const receiver = await WebhookReceiver.start();
  try {
    return await run(receiver);
  } finally {
    await receiver.close();
  }
}

/** Lets every due delivery run: moving the clock by 0 ms attempts what is due, then answers. */
async function settle(control: ControlClient, ms = 0): Promise<void> {
  await control.advanceClock(ms);
}

async function inbound(control: ControlClient, mailbox: string, subject = 'Hello') {
  return control.inject({
    mailbox,
    from: 'Bob Stone <bob@partner.test>',
    to: [mailbox],
    subject,
    text: 'Hi there',
  });
}

rule(
  [
    '6.2-R1',
    '6.2-R2',
    '6.2-R3',
    '6.3-R1',
    '6.3-R2',
    '6.3-R3',
    'D-36',
    'D-37',
    '2.5-R3',
    '2.5-R4',
    '6.1-R1',
    '6-R1',
  ],
  'delivers email.received with the four X-Service headers, a body per the spec, signed to the byte',
  async ({ api, target, validator }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    await withReceiver(async (receiver) => {
      const webhook = await control.createWebhook(tenant.ownerId, receiver.url, 'follow-owner');
      expect(webhook.secret.startsWith('whsec_')).toBe(true);
      const { id } = await inbound(control, tenant.mailboxes[0]!, 'Café ☕ 日本語');
      const [delivery] = await receiver.waitFor(1);
      await settle(control);
      expect(receiver.deliveries).toHaveLength(1);
      const d = delivery!;
      expect(header(d, 'content-type')).toMatch(/^application\/json/);
      expect(header(d, 'x-service-event')).toBe('email.received');
      expect(header(d, 'x-service-webhook-id')).toBe(webhook.id);
      const timestamp = header(d, 'x-service-timestamp');
      expect(timestamp).toMatch(TIMESTAMP);
      const extra = Object.keys(d.headers).filter(
        (h) =>
          h.startsWith('x-service-') &&
          ![
            'x-service-event',
            'x-service-webhook-id',
            'x-service-timestamp',
            'x-service-signature',
          ].includes(h),
      );
      expect(extra, 'no other X-Service-* header').toEqual([]);
      // An independent HMAC over the exact bytes: key = the whole secret in UTF-8, lowercase hex.
      const hmac = createHmac('sha256', Buffer.from(webhook.secret, 'utf8'))
        .update(Buffer.concat([Buffer.from(`${timestamp}.`), d.rawBody]))
        .digest('hex');
      expect(header(d, 'x-service-signature')).toBe(`sha256=${hmac}`);
      const verified = verifyWebhook({
        secret: webhook.secret,
        headers: d.headers as Record<string, string>,
        rawBody: d.rawBody,
        now: new Date(await control.now()),
      });
      const body = verified.payload as {
        event: string;
        webhookId: string;
        timestamp: string;
        data: { id: string; mailbox: string; subject: string };
      };
      expect(validator.validateWebhookBody('email.received', body)).toEqual([]);
      expect(body).toMatchObject({
        event: 'email.received',
        webhookId: webhook.id,
        timestamp,
        data: { id, mailbox: tenant.mailboxes[0], subject: 'Café ☕ 日本語' },
      });
      // D-37: data is the email as GET /emails/{id} returns it.
      const detail = (
        await api.request({ path: `/emails/${id}`, apiKey: tenant.key.secret })
      ).json();
      expect(body.data).toEqual(detail);
    });
  },
  { needs: ['control-plane', 'webhook-receiver'] },
);

rule(
  ['6.1-R1', '2.5-R2', 'D-48'],
  'delivers once per webhook whose scope covers the mailbox, for inbound mail and local delivery, and never outside it',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control, 2);
    const [a, b] = tenant.mailboxes as [string, string];
    const other = await createTenant(control);
    await withReceiver(async (all) => {
      await withReceiver(async (onlyB) => {
        await withReceiver(async (stranger) => {
          await control.createWebhook(tenant.ownerId, all.url, 'one-domain', {
            domain: tenant.domain,
          });
          await control.createWebhook(tenant.ownerId, onlyB.url, 'selected-mailbox', {
            mailboxes: [b],
          });
          await control.createWebhook(other.ownerId, stranger.url, 'follow-owner');
          await inbound(control, a);
          // Local delivery: a sends to b, so b's inbox copy is new mail reaching b.
          const sent = await api.request({
            method: 'POST',
            path: '/emails/send',
            json: { from: a, to: b, subject: 'Local', text: 'x' },
            apiKey: tenant.key.secret,
          });
          expect(sent.status).toBe(201);
          await all.waitFor(2);
          await onlyB.waitFor(1);
          await settle(control);
          const mailboxes = (r: WebhookReceiver) =>
            r.deliveries
              .map(
                (d) =>
                  (JSON.parse(d.rawBody.toString('utf8')) as { data: { mailbox: string } }).data
                    .mailbox,
              )
              .sort();
          expect(mailboxes(all)).toEqual([a, b].sort());
          expect(mailboxes(onlyB)).toEqual([b]);
          expect(stranger.deliveries).toEqual([]);
        });
      });
    });
  },
  { needs: ['control-plane', 'webhook-receiver', 'second-key', 'destructive'] },
);

rule(
  ['2.5-R2', '6.1-R1'],
  "follows the owner's grants: after a grant is revoked, mail to that mailbox is not delivered",
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control, 2);
    const [a, b] = tenant.mailboxes as [string, string];
    await withReceiver(async (receiver) => {
      await control.createWebhook(tenant.ownerId, receiver.url, 'follow-owner');
      await control.revoke(tenant.ownerId, b);
      await inbound(control, b);
      await inbound(control, a);
      await receiver.waitFor(1);
      await settle(control);
      expect(
        receiver.deliveries.map(
          (d) => (JSON.parse(d.rawBody.toString()) as { data: { mailbox: string } }).data.mailbox,
        ),
      ).toEqual([a]);
    });
  },
  { needs: ['control-plane', 'webhook-receiver'] },
);

rule(
  ['6.4-R3', 'D-34', '2.5-R1', '6.4-R6', 'D-30', '6.4-R4'],
  'retries a delivery answered 500, redirected or too late, exactly on the schedule, until a 2xx',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const late = (target.webhookTimeoutMs ?? 10_000) + 300;
    await withReceiver(async (receiver) => {
      // 1st: 500; 2nd: a redirect (never followed); 3rd: too late; 4th: 200.
      receiver.answerWith(
        (n) =>
          [
            { status: 500 },
            { status: 302, location: 'http://127.0.0.1:1/elsewhere' },
            { status: 200, delayMs: late },
          ][n] ?? { status: 204 },
      );
      const webhook = await control.createWebhook(tenant.ownerId, receiver.url, 'follow-owner');
      await inbound(control, tenant.mailboxes[0]!);
      await receiver.waitFor(1);
      await settle(control);
      const schedule = [60_000, 5 * 60_000, 30 * 60_000];
      for (const [i, delay] of schedule.entries()) {
        await settle(control, delay - 1000);
        expect(receiver.deliveries, `no retry ${i + 1} before ${delay / 1000} s`).toHaveLength(
          i + 1,
        );
        await settle(control, 1000);
        await receiver.waitFor(i + 2);
      }
      await settle(control);
      const [delivery] = await control.deliveries(webhook.id);
      expect(delivery?.status).toBe('succeeded');
      expect(delivery?.attempts.map((a) => a.statusCode)).toEqual([500, 302, null, 204]);
      expect(delivery?.attempts[1]?.error ?? '').toMatch(/redirect/i);
      expect(delivery?.attempts[2]?.error ?? '').toMatch(/time/i);
      // Every attempt is signed afresh: a new timestamp, a new signature, the same email.
      const stamps = receiver.deliveries.map((d) => header(d, 'x-service-timestamp'));
      expect(new Set(stamps).size).toBe(4);
    });
  },
  { needs: ['control-plane', 'webhook-receiver'], timeout: 30_000 },
);

rule(
  ['3.2-R1', '3.2-R2', '6.4-R5', 'D-35', '6.1-R2', 'D-37'],
  'pauses after 15 failed attempts in a row, records but does not send while paused, still sends a test, and resumes when re-enabled',
  async ({ api, target, validator }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0]!;
    await withReceiver(async (receiver) => {
      receiver.answerWith(() => ({ status: 503 }));
      const webhook = await control.createWebhook(tenant.ownerId, receiver.url, 'follow-owner');
      for (let i = 0; i < 14; i += 1) await inbound(control, mailbox, `fail ${i}`);
      await receiver.waitFor(14);
      await settle(control);
      expect((await control.webhook(webhook.id)).status, 'still active after 14').toBe('active');
      await inbound(control, mailbox, 'fail 14');
      await receiver.waitFor(15);
      await settle(control);
      expect(await control.webhook(webhook.id)).toMatchObject({
        status: 'paused',
        consecutiveFailures: 15,
      });
      await inbound(control, mailbox, 'while paused');
      await settle(control, 24 * 3_600_000); // a whole retry schedule later, nothing more is sent
      expect(receiver.deliveries).toHaveLength(15);
      const history = await control.deliveries(webhook.id);
      expect(history[0]).toMatchObject({ status: 'paused', attempts: [] });

      receiver.answerWith(() => ({ status: 200 }));
      const test = await control.testWebhook(webhook.id);
      expect(test).toMatchObject({ ok: true, statusCode: 200 });
      const testDelivery = receiver.deliveries[15]!;
      expect(header(testDelivery, 'x-service-event')).toBe('webhook.test');
      expect(
        validator.validateWebhookBody('webhook.test', JSON.parse(testDelivery.rawBody.toString())),
      ).toEqual([]);

      await control.enableWebhook(webhook.id);
      expect(await control.webhook(webhook.id), 're-enabling resets the count (D-35)').toMatchObject({
        status: 'active',
        consecutiveFailures: 0,
      });
      // Counted afresh: one failure after re-enabling must not pause the webhook again.
      receiver.answerWith(() => ({ status: 503 }));
      await inbound(control, mailbox, 'one failure after re-enable');
      await receiver.waitFor(17);
      await settle(control);
      expect(
        await control.webhook(webhook.id),
        'one failed attempt after re-enabling counts 1, not 16',
      ).toMatchObject({ status: 'active', consecutiveFailures: 1 });

      receiver.answerWith(() => ({ status: 200 }));
      await inbound(control, mailbox, 'after re-enable');
      await receiver.waitFor(18);
      await settle(control);
      expect(JSON.parse(receiver.deliveries[17]!.rawBody.toString())).toMatchObject({
        data: { subject: 'after re-enable' },
      });
      expect(await control.webhook(webhook.id)).toMatchObject({
        status: 'active',
        consecutiveFailures: 0,
      });
    });
  },
  { needs: ['control-plane', 'webhook-receiver'], timeout: 30_000 },
);

rule(
  ['2.5-R1', '6.4-R6', 'D-45'],
  'refuses webhook endpoints that are not public http(s) URLs',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const refused = [
      'http://10.0.0.1/hook',
      'http://192.168.1.10/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://2852039166/', // 169.254.169.254 in decimal
      'http://[fd00::1]/hook',
      'http://[::ffff:10.0.0.1]/hook',
      'http://100.64.0.1/hook',
      'http://224.0.0.1/hook',
      'https://user:secret@hooks.example.com/hook',
      'ftp://hooks.example.com/hook',
      'file:///etc/passwd',
      'http://intranet/hook',
    ];
    for (const url of refused) {
      const answer = await control.refuseWebhook(tenant.ownerId, url);
      expect(answer, url).toEqual({ status: 400, code: 'invalid_webhook_url' });
    }
    for (const url of [
      'https://hooks.example.com/mail',
      'https://93.184.216.34:8443/hook?x=1',
      'https://[2606:4700:4700::1111]/hook',
    ]) {
      expect((await control.refuseWebhook(tenant.ownerId, url)).status, url).toBe(201);
    }
  },
  { needs: ['control-plane'] },
);
