/**
 * §4, §2.1, §2.3 and §9: results come back directly (no envelope), timestamps are ISO 8601,
 * and a key keeps the name it was created with.
 */
import { expect } from 'vitest';
import { rule } from '../src/check.ts';
import { ControlClient, createTenant } from '../src/control-client.ts';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

rule(
  ['4-R2'],
  'returns results directly: an array of mailboxes, an email object, a page object, no envelope',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0]!;
    const { id } = await control.inject({
      mailbox,
      from: 'bob@partner.test',
      subject: 'Shape',
      text: 'x',
    });
    const mailboxes = (
      await api.request({ path: '/mailboxes', apiKey: tenant.key.secret })
    ).json<unknown>();
    expect(Array.isArray(mailboxes), 'GET /mailboxes is a bare array').toBe(true);
    const detail = (await api.request({ path: `/emails/${id}`, apiKey: tenant.key.secret })).json<
      Record<string, unknown>
    >();
    expect(detail.id, 'GET /emails/{id} has the email fields at the top level').toBe(id);
    expect(Object.keys(detail)).not.toContain('data');
    const page = (
      await api.request({ path: '/emails', query: { mailbox }, apiKey: tenant.key.secret })
    ).json<Record<string, unknown>>();
    expect(Object.keys(page).sort()).toEqual(expect.arrayContaining(['emails', 'nextCursor']));
  },
  { needs: ['control-plane'] },
);

rule(
  ['2.3-R3', '9-R3'],
  'writes every timestamp as ISO 8601, and ids and cursors as opaque strings',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0]!;
    for (let i = 0; i < 3; i += 1)
      await control.inject({ mailbox, from: 'bob@partner.test', subject: `t${i}`, text: 'x' });
    const sent = (
      await api.request({
        method: 'POST',
        path: '/emails/send',
        json: { from: mailbox, to: mailbox, subject: 'Stamp', text: 'x' },
        apiKey: tenant.key.secret,
      })
    ).json<{ receivedAt: string; sentAt: string | null; id: string }>();
    expect(sent.receivedAt).toMatch(ISO_8601);
    expect(sent.sentAt ?? '').toMatch(ISO_8601);
    const page = (
      await api.request({
        path: '/emails',
        query: { mailbox, limit: 2 },
        apiKey: tenant.key.secret,
      })
    ).json<{ emails: { id: unknown; receivedAt: string }[]; nextCursor: unknown }>();
    for (const email of page.emails) {
      expect(email.receivedAt).toMatch(ISO_8601);
      expect(typeof email.id).toBe('string');
    }
    expect(typeof page.nextCursor).toBe('string');
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['2.1-R1'],
  'keeps the name a key was created with, identifying its application',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const key = await control.createKey(tenant.ownerId, 'follow-owner', {
      name: 'Billing sync (prod)',
    });
    const keys = (
      await api.request({
        path: `${target.control!.baseUrl}/keys`,
        absolute: true,
        headers: { Authorization: `Bearer ${target.control!.token}` },
      })
    ).json<{ id: string; name: string }[]>();
    expect(keys.find((k) => k.id === key.id)?.name).toBe('Billing sync (prod)');
    expect((await api.request({ path: '/mailboxes', apiKey: key.secret })).status).toBe(200);
  },
  { needs: ['control-plane'] },
);
