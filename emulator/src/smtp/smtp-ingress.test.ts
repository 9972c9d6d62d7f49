// SMTP ingress (issue 17 item 2), driven by nodemailer as a real SMTP client over loopback.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import { emailDetail } from '../domain/email-view.ts';
import { startSmtpIngress, type SmtpIngress, type SmtpOutcome } from './smtp-ingress.ts';

const started: SmtpIngress[] = [];
afterEach(async () => {
  for (const ingress of started.splice(0)) await ingress.close();
});

/** An emulator with two mailboxes and a webhook, and its SMTP ingress on a free port. */
async function world(maxMessageBytes = 1024 * 1024) {
  const deps = defaultDeps({ logError: () => {}, connector: async () => ({ status: 200 }) });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  for (const address of ['alice@acme.test', 'bob@acme.test']) {
    services.directory.createMailbox({ address });
    services.directory.grant(owner.id, address);
  }
  const webhook = services.webhooks.create({
    ownerId: owner.id,
    url: 'https://hooks.example.com/mail',
    scope: 'follow-owner',
  }).webhook;
  const outcomes: SmtpOutcome[] = [];
  const ingress = await startSmtpIngress(
    {
      store: deps.store,
      inbound: services.inbound,
      maxMessageBytes,
      onMessage: (o) => outcomes.push(o),
    },
    '127.0.0.1',
    0,
  );
  started.push(ingress);
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: ingress.port,
    secure: false,
    ignoreTLS: true,
  });
  const inbox = (mailbox: string) =>
    deps.store.emails
      .list({ mailbox, folder: 'inbox' }, 100)
      .emails.map((e) => deps.store.emails.get(e.id)!);
  return { deps, services, ingress, transport, inbox, outcomes, webhook };
}

const RAW_MESSAGE = () =>
  new MailComposer({
    from: 'Carol <carol@partner.test>',
    to: 'alice@acme.test',
    subject: 'Quarterly figures',
    text: 'Figures attached.',
    html: '<p>Figures <b>attached</b>.</p>',
    messageId: '<q3@partner.test>',
    attachments: [{ filename: 'q3.csv', content: 'month,total\nJuly,12\n' }],
  })
    .compile()
    .build();

describe('SMTP ingress', () => {
  it('delivers a message to a mailbox exactly as control-plane inbound mail arrives, attachments and webhooks included', async () => {
    const { services, transport, inbox, webhook } = await world();
    const raw = await RAW_MESSAGE();
    const info = await transport.sendMail({
      envelope: { from: 'carol@partner.test', to: ['alice@acme.test'] },
      raw,
    });
    expect(info.accepted).toEqual(['alice@acme.test']);
    const [viaSmtp] = inbox('alice@acme.test');
    expect(viaSmtp).toBeDefined();
    const viaControl = await services.inbound.injectRaw(raw, { mailbox: 'bob@acme.test' });
    const comparable = (e: typeof viaControl) => {
      const {
        id: _id,
        mailbox: _m,
        receivedAt: _r,
        attachments,
        ...rest
      } = emailDetail(e) as ReturnType<typeof emailDetail> & { attachments: { id: string }[] };
      return { ...rest, attachments: attachments.map(({ id: _a, ...a }) => a) };
    };
    expect(comparable(viaSmtp!)).toEqual(comparable(viaControl));
    expect(viaSmtp!.attachments).toHaveLength(1);
    expect(services.webhooks.deliveries(webhook.id).map((d) => d.emailId)).toContain(viaSmtp!.id);
  });

  it('refuses an unknown recipient with 550 5.1.1 and delivers to the known ones', async () => {
    const { transport, inbox, outcomes } = await world();
    const info = await transport.sendMail({
      from: 'carol@partner.test',
      to: ['alice@acme.test', 'nobody@acme.test', 'bob@acme.test'],
      subject: 'Several',
      text: 'Hi all',
    });
    expect(info.accepted.sort()).toEqual(['alice@acme.test', 'bob@acme.test']);
    expect(info.rejected).toEqual(['nobody@acme.test']);
    const refusal = info.rejectedErrors?.[0] as (Error & { responseCode?: number }) | undefined;
    expect(refusal?.responseCode).toBe(550);
    expect(refusal?.message).toMatch(/5\.1\.1/);
    expect(inbox('alice@acme.test').map((e) => e.subject)).toEqual(['Several']);
    expect(inbox('bob@acme.test').map((e) => e.subject)).toEqual(['Several']);
    expect(outcomes.map((o) => o.delivered.length)).toEqual([2]);
  });

  it('refuses a message with only unknown recipients, delivering nothing', async () => {
    const { deps, transport } = await world();
    await expect(
      transport.sendMail({ from: 'carol@partner.test', to: 'nobody@acme.test', text: 'x' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    expect(deps.store.emails.count()).toBe(0);
  });

  it('refuses a message over the size limit with 552, delivering nothing', async () => {
    const { deps, transport, outcomes } = await world(10_000);
    await expect(
      transport.sendMail({
        from: 'carol@partner.test',
        to: 'alice@acme.test',
        text: 'x'.repeat(20_000),
      }),
    ).rejects.toMatchObject({ responseCode: 552 });
    expect(deps.store.emails.count()).toBe(0);
    expect(outcomes.map((o) => o.refused?.code)).toEqual([552]);
  });

  it('takes mail from swaks, a command-line SMTP client (Debian package swaks)', async () => {
    const swaks = spawnSync('swaks', ['--version'], { encoding: 'utf8' });
    // CI installs swaks (.ci/run); elsewhere the test says what is missing instead of passing.
    expect(swaks.error, 'swaks is not installed: apt-get install swaks').toBeUndefined();
    const { ingress, inbox } = await world();
    // Asynchronously: the SMTP server answers from this very process.
    const run = await promisify(execFile)(
      'swaks',
      [
        '--server',
        `127.0.0.1:${ingress.port}`,
        '--from',
        'carol@partner.test',
        '--to',
        'bob@acme.test',
        '--header',
        'Subject: From swaks',
        '--body',
        'Sent by swaks.',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.stdout).toMatch(/^<- +250 .*Delivered to 1 mailbox/m);
    const [email] = inbox('bob@acme.test');
    expect(email?.subject).toBe('From swaks');
    expect(email?.text?.trim()).toBe('Sent by swaks.');
  });
});
