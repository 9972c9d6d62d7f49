// The dashboard changes mail through EmailService: a change there is published as the API's
// PATCH publishes it, so a wait for mail (D-71, GET /_mailtwin/v1/wait/emails) wakes on it.
import { describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import type { EmulatorEvent } from '../events.ts';

describe('EmailService.update', () => {
  it('publishes email.updated for a change the dashboard makes, and nothing for a missing email', async () => {
    const deps = defaultDeps({ logError: () => {} });
    const services = createServices(deps);
    services.directory.createMailbox({ address: 'alice@acme.test' });
    const { id } = await services.inbound.injectRaw(
      Buffer.from('From: bob@partner.test\r\nSubject: Hi\r\n\r\nHello.\r\n', 'utf8'),
      { mailbox: 'alice@acme.test' },
    );
    const heard: EmulatorEvent[] = [];
    deps.events.subscribe((event) => void heard.push(event));
    services.emails.update(id, { read: true, folder: 'trash' });
    services.emails.update('no-such-email', { read: true });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(heard.filter((e) => e.type === 'email.updated')).toEqual([
      { type: 'email.updated', emailId: id, mailbox: 'alice@acme.test' },
    ]);
    expect(services.emails.get(id)).toMatchObject({ read: true, folder: 'trash' });
  });
});
