/**
 * §2.5, §3.2 and §6 over a real receiver on loopback: what is delivered, to whom, signed how,
 * retried when, paused when. The in-process emulator refuses local webhook addresses as a
 * deployment does; it reaches the receiver by a public name (targets.ts, receiverHost). Signatures are checked twice: with an independent HMAC here and
 * with mailtwin/webhooks, using `now` from the deployment's clock.
 *
 * What §6 says holds for any schedule, threshold and key derivation a deployment chose: a
 * failing delivery is retried, a repeatedly failing endpoint is paused, the signature is an
 * HMAC-SHA256 of <timestamp>.<raw_body> keyed with the secret. The exact schedule (D-34), the
 * threshold of 15 (D-35), the key bytes (D-36), the time-out (D-30) and the test event (D-37)
 * are charged to their decisions, checked after the documented part where they would hide it.
 */
import { createHmac } from 'node:crypto';
import { verifyWebhook } from 'mailtwin/webhooks';
import { chargeTo, expectAt } from '../src/contract/charge.ts';
import { rule, type CheckContext } from '../src/check-runner/check.ts';
import { ControlClient, createTenant } from '../src/client/control-client.ts';
import type { ApiClient } from '../src/client/client.ts';
import { randomTag, world, type World } from '../src/worlds/send-world.ts';
import type { Target } from '../src/client/target.ts';
import {
  WebhookReceiver,
  liveReceiver,
  type ReceivedDelivery,
} from '../src/client/webhook-receiver.ts';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** HMAC-SHA256 of `<timestamp>.<raw_body>` in lowercase hex, keyed with `key`. */
const hmacHex = (key: Buffer, timestamp: string, rawBody: Buffer) =>
  createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]))
    .digest('hex');

/**
 * The keys a deployment may have derived from a `whsec_` secret: §6.3 says "keyed with the
 * webhook's signing secret" without saying which bytes (D-36 chose the whole string in UTF-8).
 */
function candidateKeys(secret: string): Buffer[] {
  const rest = secret.replace(/^whsec_/, '');
  const keys = [Buffer.from(secret, 'utf8'), Buffer.from(rest, 'utf8')];
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(rest)) keys.push(Buffer.from(rest, 'base64'));
  if (/^(?:[0-9a-fA-F]{2})+$/.test(rest)) keys.push(Buffer.from(rest, 'hex'));
  return keys;
}

/**
 * A delivery's body with its `data` in the checks' names: §6.2 names only id and mailbox, and
 * the target's binding names the rest (binding/dialect.ts).
 */
function eventOf(api: ApiClient, raw: Buffer): unknown {
  const body = JSON.parse(raw.toString('utf8')) as unknown;
  if (typeof body !== 'object' || body === null || !('data' in body)) return body;
  return { ...body, data: api.dialect.canonicalWebhookData(body.data) };
}

/** The mailbox of each delivery's data. */
const mailboxesOf = (deliveries: ReceivedDelivery[]) =>
  deliveries.map(
    (d) => (JSON.parse(d.rawBody.toString('utf8')) as { data: { mailbox: string } }).data.mailbox,
  );

function header(delivery: ReceivedDelivery, name: string): string {
  const value = delivery.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/**
 * The URL a webhook is made with for `receiver`: under the public name the target reaches the
 * suite's receiver by (targets.ts, receiverHost), else the receiver's loopback URL as it is.
 */
function hookUrl(target: Target, receiver: WebhookReceiver): string {
  if (target.receiverHost === undefined) return receiver.url;
  const url = new URL(receiver.url);
  url.hostname = target.receiverHost;
  return url.toString();
}

async function withReceiver<T>(run: (receiver: WebhookReceiver) => Promise<T>): Promise<T> {
  const receiver = await WebhookReceiver.start();
  try {
    return await run(receiver);
  } finally {
    await receiver.close();
  }
}

/**
 * Decided assertions whose failure must not hide the documented ones after them: `soft` runs
 * one, keeping its (charged) failure; `rethrow` throws the first kept failure at the end.
 */
function deferred() {
  let kept: unknown;
  return {
    async soft(block: () => unknown): Promise<void> {
      try {
        await block();
      } catch (error) {
        kept ??= error;
      }
    },
    rethrow(): void {
      if (kept !== undefined) throw kept;
    },
  };
}

/** Lets every due delivery run: moving the clock by 0 ms attempts what is due, then answers. */
async function settle(control: ControlClient, ms = 0): Promise<void> {
  await control.advanceClock(ms);
}

/**
 * When attempt `n` of the webhook's first delivery started, and when it ended (start plus its
 * latency), once the target has recorded it; undefined if it does not within `waitMs`. On a
 * live target a late answer holds an attempt for the whole time-out in real time, which the
 * target's clock counts too, so a retry's due time is found from the record, not from the
 * clock moves the check made.
 */
async function recordedAttempt(
  control: ControlClient,
  webhookId: string,
  n: number,
  waitMs: number,
): Promise<{ start: number; end: number } | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const [delivery] = await control.deliveries(webhookId);
    const attempt = delivery?.attempts[n - 1];
    if (attempt !== undefined) {
      const start = Date.parse(attempt.at);
      return { start, end: start + attempt.latencyMs };
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Moves the target's clock forward to `instant` (epoch ms), if it is not there already. */
async function advanceTo(control: ControlClient, instant: number): Promise<void> {
  const now = Date.parse(await control.now());
  await control.advanceClock(Math.max(0, instant - now));
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

/**
 * The receiver, signing secret, path and id of a webhook covering the world's mailboxes: in the
 * control world made through the control plane for a loopback receiver; in an API world the
 * webhook made in the deployment's dashboard (`--webhook-*`), and the run's receiver, listening
 * where its public URL leads since the run began (webhook-receiver.ts, liveReceiver).
 */
async function configuredWebhook(context: CheckContext, w: World) {
  const { target } = context;
  if (target.webhook !== undefined && target.control === undefined) {
    return {
      receiver: await liveReceiver(target.webhook.listen),
      close: async () => {},
      secret: target.webhook.secret,
      id: target.webhook.id,
      path: new URL(target.webhook.publicUrl).pathname,
    };
  }
  const receiver = await WebhookReceiver.start();
  try {
    const made = await w.control.createWebhook(
      w.tenant.ownerId!,
      hookUrl(target, receiver),
      'follow-owner',
    );
    return {
      receiver,
      close: () => receiver.close(),
      secret: made.secret,
      id: made.id,
      path: new URL(receiver.url).pathname,
    };
  } catch (error) {
    await receiver.close();
    throw error;
  }
}

rule(
  ['6.1-R1', '6.2-R1', '6.2-R2', '6.2-R3', '6.3-R1', '6.3-R2', '2.5-R4', 'D-37'],
  'delivers email.received for mail the run sends to a covered mailbox: a POST to the webhook URL, signed to the byte with its secret',
  async (context) => {
    const w = await world(context, { rule: '6.1-R1' });
    const [box0, box1] = w.box as [string, string];
    const hook = await configuredWebhook(context, w);
    try {
      const subject = `Webhook ${randomTag()} ☕`;
      const sent = await w.send({ from: box0, to: box1, subject, text: 'Hi there' });
      expectAt('6.1-R1', sent.status >= 200 && sent.status <= 299, 'the send').toBe(true);
      const ours = (d: ReceivedDelivery) => {
        try {
          const body = eventOf(w.api, d.rawBody) as {
            data?: { mailbox?: string; subject?: string };
          };
          return body.data?.mailbox === box1 && body.data?.subject === subject;
        } catch {
          return false;
        }
      };
      // §6.1: mail reaching a covered mailbox is delivered, in the deployment's own time.
      const [d] = await chargeTo('6.1-R1', () =>
        hook.receiver.waitForMatching(ours, 1, context.target.deliveryTimeoutMs),
      );
      const delivery = d!;
      // §6.1: the delivery announces an email that has reached the mailbox, so the email it
      // names can be read as soon as the delivery arrives (D-37 below asks more of data).
      const announcedId = (eventOf(w.api, delivery.rawBody) as { data?: { id?: unknown } }).data
        ?.id;
      expectAt('6.2-R3', typeof announcedId, 'data.id').toBe('string');
      const announced = await w.api.request({
        path: `/emails/${encodeURIComponent(String(announcedId))}`,
        apiKey: w.apiKey,
      });
      expectAt(
        '6.1-R1',
        announced.status,
        `GET /emails/${String(announcedId)} as its delivery arrives: the announced email can be read`,
      ).toBe(200);
      expectAt('6.2-R1', delivery.method, 'a POST').toBe('POST');
      expectAt('6.2-R1', delivery.path.split('?')[0], 'to the webhook URL').toBe(hook.path);
      expectAt('6.2-R1', header(delivery, 'content-type')).toMatch(/^application\/json/);
      expectAt('6.2-R2', header(delivery, 'x-service-event')).toBe('email.received');
      if (hook.id !== undefined)
        expectAt('2.5-R4', header(delivery, 'x-service-webhook-id')).toBe(hook.id);
      const timestamp = header(delivery, 'x-service-timestamp');
      expectAt('6.2-R2', timestamp).toMatch(TIMESTAMP);
      const signature = header(delivery, 'x-service-signature');
      expectAt('6.3-R2', signature, 'sha256=<hex digest>').toMatch(/^sha256=[0-9a-fA-F]{64}$/);
      const digest = signature.slice('sha256='.length).toLowerCase();
      expectAt(
        '6.3-R1',
        candidateKeys(hook.secret).some(
          (key) => hmacHex(key, timestamp, delivery.rawBody) === digest,
        ),
        'an HMAC-SHA256 of <timestamp>.<raw_body> keyed with the secret, over the exact bytes',
      ).toBe(true);
      const body = eventOf(w.api, delivery.rawBody) as {
        event: string;
        webhookId: string;
        timestamp: string;
        data: { id: string; mailbox: string };
      };
      expectAt('6.2-R3', body).toMatchObject({ event: 'email.received', timestamp });
      expectAt('6.2-R3', body.data.mailbox).toBe(box1);
      if (hook.id !== undefined) expectAt('2.5-R4', body.webhookId).toBe(hook.id);
      expectAt('2.5-R4', body.webhookId, 'the body names the webhook').toBe(
        header(delivery, 'x-service-webhook-id'),
      );
      // D-37: data is the received email as GET /emails/{id} shows it.
      expectAt('D-37', context.validator.validateWebhookBody('email.received', body)).toEqual([]);
      expectAt('D-37', body.data).toEqual(announced.json());
    } finally {
      await hook.close();
    }
  },
  { needs: ['mail', 'webhook-receiver', 'destructive'] },
);

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
    'D-34',
  ],
  'delivers email.received with the four X-Service headers, a body per the spec, signed to the byte',
  async ({ api, target, validator }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    await withReceiver(async (receiver) => {
      const webhook = await control.createWebhook(
        tenant.ownerId,
        hookUrl(target, receiver),
        'follow-owner',
      );
      expectAt('2.5-R3', webhook.secret.startsWith('whsec_')).toBe(true);
      const { id } = await inbound(control, tenant.mailboxes[0]!, 'Café ☕ 日本語');
      const [delivery] = await chargeTo('6.1-R1', () => receiver.waitFor(1));
      await settle(control);
      const d = delivery!;
      expectAt('6.2-R1', header(d, 'content-type')).toMatch(/^application\/json/);
      expectAt('6.2-R2', header(d, 'x-service-event')).toBe('email.received');
      expectAt('2.5-R4', header(d, 'x-service-webhook-id')).toBe(webhook.id);
      const timestamp = header(d, 'x-service-timestamp');
      expectAt('6.2-R2', timestamp).toMatch(TIMESTAMP);
      const signature = header(d, 'x-service-signature');
      expectAt('6.3-R2', signature, 'sha256=<hex digest>').toMatch(/^sha256=[0-9a-fA-F]{64}$/);
      // An independent HMAC over the exact bytes <timestamp>.<raw_body>, with any key bytes
      // the secret may stand for (§6.3), then with D-36's: the whole secret in UTF-8, lowercase.
      const digest = signature.slice('sha256='.length).toLowerCase();
      expectAt(
        '6.3-R1',
        candidateKeys(webhook.secret).some((key) => hmacHex(key, timestamp, d.rawBody) === digest),
        'the signature is an HMAC-SHA256 of <timestamp>.<raw_body> keyed with the secret',
      ).toBe(true);
      const body = eventOf(api, d.rawBody) as {
        event: string;
        webhookId: string;
        timestamp: string;
        data: { id: string; mailbox: string; subject: string };
      };
      expectAt('6.2-R3', body).toMatchObject({
        event: 'email.received',
        timestamp,
        data: { id, mailbox: tenant.mailboxes[0] },
      });
      expectAt('2.5-R4', body.webhookId).toBe(webhook.id);
      expectAt('D-36', signature, 'keyed with the whole secret in UTF-8, lowercase hex').toBe(
        `sha256=${hmacHex(Buffer.from(webhook.secret, 'utf8'), timestamp, d.rawBody)}`,
      );
      await chargeTo('D-36', async () =>
        verifyWebhook({
          secret: webhook.secret,
          headers: d.headers as Record<string, string>,
          rawBody: d.rawBody,
          now: new Date(await control.now()),
        }),
      );
      // A delivered event is not sent again (D-34: only failed attempts are retried).
      expectAt('D-34', receiver.deliveries, 'one delivery').toHaveLength(1);
      expectAt('D-37', validator.validateWebhookBody('email.received', body)).toEqual([]);
      expectAt('D-37', body.data.subject).toBe('Café ☕ 日本語');
      // D-37: data is the email as GET /emails/{id} returns it.
      const detail = (
        await api.request({ path: `/emails/${id}`, apiKey: tenant.key.secret })
      ).json();
      expectAt('D-37', body.data).toEqual(detail);
    });
  },
  { needs: ['crafted-mail', 'provisioning', 'clock', 'webhook-receiver', 'webhook-config'] },
);

rule(
  ['6.1-R1', '2.5-R2', 'D-48', 'D-34'],
  'delivers once per webhook whose scope covers the mailbox, for inbound mail and local delivery, and never outside it',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control, 2);
    const [a, b] = tenant.mailboxes as [string, string];
    const other = await createTenant(control);
    await withReceiver(async (all) => {
      await withReceiver(async (onlyB) => {
        await withReceiver(async (stranger) => {
          await control.createWebhook(tenant.ownerId, hookUrl(target, all), 'one-domain', {
            domain: tenant.domain,
          });
          await control.createWebhook(tenant.ownerId, hookUrl(target, onlyB), 'selected-mailbox', {
            mailboxes: [b],
          });
          await control.createWebhook(other.ownerId, hookUrl(target, stranger), 'follow-owner');
          await inbound(control, a);
          // Local delivery: a sends to b, so b's inbox copy is new mail reaching b.
          const sent = await api.request({
            method: 'POST',
            path: '/emails/send',
            json: { from: a, to: b, subject: 'Local', text: 'x' },
            apiKey: tenant.key.secret,
          });
          expectAt('6.1-R1', sent.status >= 200 && sent.status <= 299, 'the local send').toBe(true);
          await chargeTo('6.1-R1', () => all.waitFor(2));
          await chargeTo('6.1-R1', () => onlyB.waitFor(1));
          await settle(control);
          const distinct = (r: WebhookReceiver) => [...new Set(mailboxesOf(r.deliveries))].sort();
          expectAt('6.1-R1', distinct(all)).toEqual([a, b].sort());
          expectAt('2.5-R2', distinct(onlyB), 'only the selected mailbox').toEqual([b]);
          expectAt('2.5-R2', stranger.deliveries, 'another owner’s webhook').toEqual([]);
          // Once each: a delivered event is not sent again (D-34).
          expectAt('D-34', mailboxesOf(all.deliveries).sort()).toEqual([a, b].sort());
          expectAt('D-34', mailboxesOf(onlyB.deliveries)).toEqual([b]);
        });
      });
    });
  },
  {
    needs: [
      'crafted-mail',
      'second-key',
      'provisioning',
      'clock',
      'webhook-receiver',
      'webhook-config',
      'destructive',
    ],
  },
);

rule(
  ['2.5-R2', '6.1-R1'],
  "follows the owner's grants: after a grant is revoked, mail to that mailbox is not delivered",
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control, 2);
    const [a, b] = tenant.mailboxes as [string, string];
    await withReceiver(async (receiver) => {
      await control.createWebhook(tenant.ownerId, hookUrl(target, receiver), 'follow-owner');
      await control.revoke(tenant.ownerId, b);
      await inbound(control, b);
      await inbound(control, a);
      await chargeTo('6.1-R1', () => receiver.waitFor(1));
      await settle(control);
      expectAt('2.5-R2', [...new Set(mailboxesOf(receiver.deliveries))]).toEqual([a]);
    });
  },
  { needs: ['crafted-mail', 'provisioning', 'clock', 'webhook-receiver', 'webhook-config'] },
);

rule(
  ['6.4-R3', 'D-34', '2.5-R1', '6.4-R6', 'D-30', '6.4-R4', '6.2-R1'],
  'retries a delivery answered 500, redirected or too late, exactly on the schedule, until a 2xx, every attempt a POST of the same email and webhook IDs',
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
      const webhook = await control.createWebhook(
        tenant.ownerId,
        hookUrl(target, receiver),
        'follow-owner',
      );
      await inbound(control, tenant.mailboxes[0]!);
      await chargeTo('6.4-R3', () => receiver.waitFor(1));
      await settle(control);
      // D-34's schedule, kept aside so that a deployment with another one is still checked for
      // what §6.4 requires: the 500 and the redirect are retried, whenever.
      const decided = deferred();
      const schedule = [60_000, 5 * 60_000, 30 * 60_000];
      for (const [i, delay] of schedule.entries()) {
        // Counted from the attempt before, whether from its start or its end (D-34 says
        // "after"); a target on another schedule may not have made it: then from now.
        const now = Date.parse(await control.now());
        const previous = (await recordedAttempt(control, webhook.id, i + 1, late + 5000)) ?? {
          start: now,
          end: now,
        };
        await advanceTo(control, previous.start + delay - 1000);
        const before = receiver.deliveries.length;
        await decided.soft(() =>
          expectAt('D-34', before, `no retry ${i + 1} before ${delay / 1000} s`).toBe(i + 1),
        );
        await advanceTo(control, previous.end + delay);
        await decided.soft(() => chargeTo('D-34', () => receiver.waitFor(i + 2, 2000)));
      }
      await settle(control, 3 * 24 * 3_600_000); // any schedule's retries are due by now
      await chargeTo('6.4-R3', () => receiver.waitFor(2, 2000)); // the 500 is retried
      await chargeTo('6.4-R6', () => receiver.waitFor(3, 2000)); // a redirect is a failure
      // A late answer is a failure, retried: with D-30's time-out of 10 s.
      await chargeTo('D-30', () => receiver.waitFor(4, 2000));
      await settle(control);
      const [delivery] = await control.deliveries(webhook.id);
      expectAt('6.4-R4', delivery?.status, 'the success is recorded').toBe('succeeded');
      expectAt(
        '6.4-R4',
        delivery?.attempts.map((a) => a.statusCode),
      ).toEqual([500, 302, null, 204]);
      expectAt('6.4-R6', delivery?.attempts[1]?.error ?? '').toMatch(/redirect/i);
      expectAt('D-30', delivery?.attempts[2]?.error ?? '').toMatch(/time/i);
      // Every attempt is signed afresh: a receiver rejects timestamps outside its replay window
      // (§6.3), so a retry hours later must carry a new one.
      const stamps = receiver.deliveries.map((d) => header(d, 'x-service-timestamp'));
      expectAt('6.4-R3', new Set(stamps).size, 'a new timestamp per attempt').toBe(4);
      // Every attempt is the same event retried (§6.4): a POST to the webhook's URL (§6.2) with
      // the email ID and webhook ID a receiver deduplicates by (6.4-R2, the receiver's part), in
      // the header and the body alike.
      const path = new URL(hookUrl(target, receiver)).pathname;
      for (const [i, attempt] of receiver.deliveries.entries()) {
        const what = `attempt ${i + 1}`;
        expectAt('6.2-R1', attempt.method, `${what} is a POST`).toBe('POST');
        expectAt('6.2-R1', attempt.path.split('?')[0], `${what} goes to the webhook URL`).toBe(
          path,
        );
        const body = JSON.parse(attempt.rawBody.toString('utf8')) as {
          webhookId: string;
          data: { id: string };
        };
        expectAt('6.4-R3', header(attempt, 'x-service-webhook-id'), what).toBe(webhook.id);
        expectAt('6.4-R3', body.webhookId, `${what}: webhookId`).toBe(webhook.id);
        expectAt('6.4-R3', body.data.id, `${what}: the same email ID`).toBe(delivery!.emailId);
      }
      decided.rethrow();
    });
  },
  {
    needs: ['crafted-mail', 'provisioning', 'clock', 'webhook-receiver', 'webhook-config'],
    timeout: 30_000,
  },
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
      const webhook = await control.createWebhook(
        tenant.ownerId,
        hookUrl(target, receiver),
        'follow-owner',
      );
      // §3.2 and §6.4 pause an endpoint that keeps failing after some number of failures that
      // is not shown; one new email (one first attempt) at a time until it is paused. The
      // bound is far above any threshold a deployment would choose; D-35's is 15.
      const MAX = 60;
      let failed = 0;
      let status = (await control.webhook(webhook.id)).status;
      while (status === 'active' && failed < MAX) {
        await inbound(control, mailbox, `fail ${failed}`);
        await chargeTo('3.2-R1', () => receiver.waitFor(failed + 1));
        failed += 1;
        await settle(control);
        status = (await control.webhook(webhook.id)).status;
      }
      expectAt('6.4-R5', status, `paused after ${failed} failed attempts in a row`).toBe('paused');
      const decided = deferred();
      await decided.soft(() =>
        expectAt('D-35', failed, 'paused at the 15th failed attempt in a row, not before').toBe(15),
      );
      await decided.soft(async () =>
        expectAt('D-35', (await control.webhook(webhook.id)).consecutiveFailures).toBe(15),
      );
      await inbound(control, mailbox, 'while paused');
      await settle(control, 24 * 3_600_000); // a whole retry schedule later, nothing more is sent
      expectAt('3.2-R1', receiver.deliveries, 'nothing is sent while paused').toHaveLength(failed);
      const history = await control.deliveries(webhook.id);
      await decided.soft(() =>
        expectAt('D-35', history[0], 'recorded while paused, not sent').toMatchObject({
          status: 'paused',
          attempts: [],
        }),
      );

      receiver.answerWith(() => ({ status: 200 }));
      const test = await control.testWebhook(webhook.id);
      expectAt('6.1-R2', test, 'a test reaches the fixed endpoint').toMatchObject({
        ok: true,
        statusCode: 200,
      });
      const testDelivery = receiver.deliveries[failed]!;
      await decided.soft(() => {
        expectAt('D-37', header(testDelivery, 'x-service-event')).toBe('webhook.test');
        expectAt(
          'D-37',
          validator.validateWebhookBody(
            'webhook.test',
            JSON.parse(testDelivery.rawBody.toString()),
          ),
        ).toEqual([]);
      });

      await control.enableWebhook(webhook.id);
      const enabled = await control.webhook(webhook.id);
      expectAt('3.2-R2', enabled.status, 're-enabled').toBe('active');
      await decided.soft(() =>
        expectAt('D-35', enabled.consecutiveFailures, 're-enabling resets the count').toBe(0),
      );
      // Mail after re-enabling is sent again (§3.2).
      receiver.answerWith(() => ({ status: 200 }));
      await inbound(control, mailbox, 'after re-enable');
      await chargeTo('3.2-R2', () => receiver.waitFor(failed + 2));
      await settle(control);
      const last = JSON.parse(receiver.deliveries.at(-1)!.rawBody.toString()) as {
        data: { id: string };
      };
      const after = (await control.deliveries(webhook.id)).find((d) => d.emailId === last.data.id);
      expectAt('3.2-R2', after?.status, 'mail after re-enabling is delivered').toBe('succeeded');
      await decided.soft(async () =>
        expectAt('D-35', await control.webhook(webhook.id)).toMatchObject({
          status: 'active',
          consecutiveFailures: 0,
        }),
      );
      // Counted afresh: one failure after re-enabling must not pause the webhook again.
      receiver.answerWith(() => ({ status: 503 }));
      await inbound(control, mailbox, 'one failure after re-enable');
      await chargeTo('3.2-R2', () => receiver.waitFor(failed + 3));
      await settle(control);
      await decided.soft(async () =>
        expectAt(
          'D-35',
          await control.webhook(webhook.id),
          'one failed attempt after re-enabling counts 1',
        ).toMatchObject({ status: 'active', consecutiveFailures: 1 }),
      );
      decided.rethrow();
    });
  },
  {
    needs: ['crafted-mail', 'provisioning', 'clock', 'webhook-receiver', 'webhook-config'],
    timeout: 30_000,
  },
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
      // Local addresses (§2.5): loopback in every notation and localhost names. The suite's
      // in-process emulator is as strict as a deployment (its receiver has a public name).
      'http://127.0.0.1/hook',
      'http://127.1:8080/hook',
      'http://2130706433/hook',
      'http://0x7f.0.0.1/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://0.0.0.0/hook',
      'http://localhost/hook',
      'http://LOCALHOST./hook',
      'https://hooks.localhost/hook',
    ];
    for (const url of refused) {
      const answer = await control.refuseWebhook(tenant.ownerId, url);
      // §2.5: not a public http(s) URL on a public hostname; credentials and shared or
      // multicast ranges are D-45's reading of "public".
      const at = /@|\/\/100\.64\.|\/\/224\./.test(url) ? 'D-45' : '2.5-R1';
      expectAt(at, answer.status >= 400 && answer.status <= 499, `${url} is refused`).toBe(true);
      expectAt('D-45', answer, url).toEqual({ status: 400, code: 'invalid_webhook_url' });
    }
    // A public hostname is accepted (§2.5); public IP literals are D-45's choice.
    for (const [url, at] of [
      ['https://hooks.example.com/mail', '2.5-R1'],
      ['https://93.184.216.34:8443/hook?x=1', 'D-45'],
      ['https://[2606:4700:4700::1111]/hook', 'D-45'],
    ] as const) {
      const { status } = await control.refuseWebhook(tenant.ownerId, url);
      expectAt(at, status >= 200 && status <= 299, `${url} is accepted: ${status}`).toBe(true);
    }
  },
  { needs: ['provisioning', 'webhook-config'] },
);

rule(
  ['2.5-R2', '6.1-R1'],
  "keeps a one-domain webhook to its domain: mail reaching the owner's mailbox in another domain is not delivered to it",
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const inside = tenant.mailboxes[0]!;
    // The same owner's mailbox in a second domain: covered by the owner, not by the webhook.
    const outside = `box@o${randomTag()}.conformance.test`;
    await control.createMailbox(outside, 'Other domain');
    await control.grant(tenant.ownerId, outside);
    await withReceiver(async (receiver) => {
      const webhook = await control.createWebhook(
        tenant.ownerId,
        hookUrl(target, receiver),
        'one-domain',
        { domain: tenant.domain },
      );
      // Outside first: had it been delivered, it would be there before the inside one.
      const excluded = await inbound(control, outside, 'Other domain');
      const covered = await inbound(control, inside, 'Own domain');
      await chargeTo('6.1-R1', () => receiver.waitFor(1));
      await settle(control);
      expectAt('2.5-R2', mailboxesOf(receiver.deliveries), 'delivered mailboxes').toEqual([inside]);
      const recorded = (await control.deliveries(webhook.id)).map((d) => d.emailId);
      expectAt('2.5-R2', recorded, 'deliveries the dashboard shows').toEqual([covered.id]);
      expectAt('2.5-R2', recorded.includes(excluded.id)).toBe(false);
    });
  },
  { needs: ['crafted-mail', 'provisioning', 'clock', 'webhook-receiver', 'webhook-config'] },
);

rule(
  ['6.1-R2', '6.4-R4'],
  'reports a Send test that the endpoint does not answer with a 2xx as failed, with its status, and one it accepts as succeeded',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    await withReceiver(async (receiver) => {
      receiver.answerWith((n) => (n === 0 ? { status: 500 } : { status: 204 }));
      const webhook = await control.createWebhook(
        tenant.ownerId,
        hookUrl(target, receiver),
        'follow-owner',
      );
      const failed = await control.testWebhook(webhook.id);
      await chargeTo('6.1-R2', () => receiver.waitFor(1));
      // §6.1: the endpoint must return 2xx; a 500 is a failed test, shown as one (§6.4).
      expectAt('6.1-R2', failed.ok, 'a test answered 500 is not a success').toBe(false);
      expectAt('6.4-R4', failed.statusCode, 'the failed test shows the status').toBe(500);
      const passed = await control.testWebhook(webhook.id);
      expectAt('6.1-R2', passed.ok, 'a test answered 204 succeeds').toBe(true);
      expectAt('6.4-R4', passed.statusCode).toBe(204);
      const shown = (await control.deliveries(webhook.id)).map((d) => d.status);
      expectAt('6.4-R4', [...shown].sort(), 'both tests are listed').toEqual(
        ['failed', 'succeeded'].sort(),
      );
      expectAt('6.1-R2', receiver.deliveries, 'two test deliveries').toHaveLength(2);
    });
  },
  { needs: ['provisioning', 'webhook-receiver', 'webhook-config'] },
);

rule(
  ['2.1-R2', '2.5-R3'],
  "shows a key's secret and a webhook's signing secret once, in the answer that creates it, and in no later view",
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const key = await control.createKey(tenant.ownerId, 'follow-owner');
    expectAt('2.1-R2', key.secret, 'shown at creation').toMatch(/^sk-/);
    const made = await control.createWebhook(
      tenant.ownerId,
      'https://hooks.example.com/mail',
      'follow-owner',
    );
    expectAt('2.5-R3', made.secret, 'shown at creation').toMatch(/^whsec_/);
    // Every later view of the dashboard's stand-in: the lists and the records themselves.
    const views = async (path: string) => {
      const response = await api.request({
        path: `${target.control!.baseUrl}${path}`,
        absolute: true,
        headers: { Authorization: `Bearer ${target.control!.token}` },
      });
      expectAt(path.startsWith('/keys') ? '2.1-R2' : '2.5-R3', response.status, path).toBe(200);
      return response.text;
    };
    for (const path of ['/keys', `/owners/${encodeURIComponent(tenant.ownerId)}`]) {
      const text = await views(path);
      expectAt('2.1-R2', text.includes(key.secret), `GET ${path} shows no key secret`).toBe(false);
    }
    for (const path of ['/webhooks', `/webhooks/${encodeURIComponent(made.id)}`]) {
      const text = await views(path);
      expectAt('2.5-R3', text.includes(made.secret), `GET ${path} shows no signing secret`).toBe(
        false,
      );
      expectAt('2.5-R3', text.includes(made.id), `GET ${path} shows the webhook`).toBe(true);
    }
    // The key still works: it was shown once, not made once and lost.
    expectAt('2.1-R2', (await api.request({ path: '/mailboxes', apiKey: key.secret })).status).toBe(
      200,
    );
  },
  { needs: ['provisioning', 'webhook-config'] },
);
