import { describe, expect, it } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import { signatureFor } from '../webhook-delivery/signature.ts';

function world() {
  const deps = defaultDeps({ allowLoopbackWebhooks: true, logError: () => {} });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  const { webhook, secret } = services.webhooks.create({
    ownerId: owner.id,
    url: '{origin}/_mailtwin/sink',
    scope: 'follow-owner',
  });
  // One email.received body, as the dispatcher would send it now.
  const timestamp = deps.clock.now().toISOString();
  const body = JSON.stringify({
    event: 'email.received',
    webhookId: webhook.id,
    timestamp,
    data: { id: 'em_1', mailbox: 'a@acme.test' },
  });
  return { app: createApp(deps, services), webhook, secret, timestamp, body };
}

function delivery(webhookId: string, timestamp: string, body: string, signature: string) {
  return {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Event': 'email.received',
      'X-Service-Webhook-Id': webhookId,
      'X-Service-Timestamp': timestamp,
      'X-Service-Signature': signature,
    },
    body,
  };
}

describe('the demo sink, POST /_mailtwin/sink', () => {
  it('accepts a delivery signed with the webhook secret with 200 {received: true}', async () => {
    const { app, webhook, secret, timestamp, body } = world();
    const response = await app.request(
      '/_mailtwin/sink',
      delivery(webhook.id, timestamp, body, signatureFor(secret, timestamp, body)),
    );
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ received: true });
  });

  it('refuses a bad signature with 401 in the Error shape, saying why (§6.3 rule 4)', async () => {
    const { app, webhook, secret, timestamp, body } = world();
    const tampered = await app.request(
      '/_mailtwin/sink',
      delivery(webhook.id, timestamp, `${body} `, signatureFor(secret, timestamp, body)),
    );
    expect(tampered.status).toBe(401);
    expect(tampered.headers.get('content-type')).toMatch(/^application\/json/);
    const error = (await tampered.json()) as Record<string, unknown>;
    expect(Object.keys(error).sort()).toEqual(['code', 'message']);
    expect(error.code).toBe('invalid_signature');
    expect(error.message).toMatch(/^The delivery was not verified: .+\.$/);

    const unknown = await app.request('/_mailtwin/sink', delivery('wh_nope', timestamp, body, 'x'));
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({
      code: 'invalid_signature',
      message: 'The delivery was not verified: no webhook with this X-Service-Webhook-Id.',
    });
  });
});
