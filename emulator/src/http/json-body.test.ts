import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import { SMALL_BODY_MAX_BYTES } from './json-body.ts';

/** The made-up origin these tests call the app at, served as `--allowed-hosts mail.test` would. */
const HOSTS = { allowed: ['mail.test'] };

afterEach(() => vi.restoreAllMocks());

function world() {
  const deps = defaultDeps({ logError: () => {}, hosts: HOSTS });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  services.directory.createMailbox({ address: 'alice@acme.test' });
  services.directory.grant(owner.id, 'alice@acme.test');
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'app',
    scope: 'follow-owner',
  });
  const email = services.inbound.injectJson({
    mailbox: 'alice@acme.test',
    from: 'bob@partner.test',
    subject: 'Hello',
  });
  const app = createApp(deps, services);
  const patch = (body: string) =>
    app.request(`http://mail.test/openapi/v1/emails/${email.id}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
      body,
    });
  return { patch };
}

describe('a PATCH body larger than any valid one (issue 27 item 1, D-27)', () => {
  it('is refused with 413 request_too_large before it is parsed', async () => {
    const { patch } = world();
    const parse = vi.spyOn(JSON, 'parse');
    const body = JSON.stringify({ read: true, x: Array.from({ length: 1_000_000 }, (_, i) => i) });
    const response = await patch(body);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'request_too_large' });
    expect(parse.mock.calls.filter(([text]) => text.length > SMALL_BODY_MAX_BYTES)).toEqual([]);
  });

  it('takes a valid body up to 64 KiB, whitespace and all, and refuses one byte more', async () => {
    const { patch } = world();
    const valid = '{"read": true}';
    const padded = valid.padEnd(SMALL_BODY_MAX_BYTES, ' ');
    expect((await patch(padded)).status).toBe(200);
    expect((await patch(`${padded} `)).status).toBe(413);
    expect((await patch(valid)).status).toBe(200);
  });
});
