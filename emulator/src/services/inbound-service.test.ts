// Received mail parsed from raw RFC 5322 messages (the control plane's `message/rfc822` form):
// hostile input is refused as the client's fault, and what real mail carries in `Date`, group
// recipients and addresses comes back as the contract describes (issue 12, items 1, 10-12).
import { describe, expect, it } from 'vitest';
import { SpecValidator } from '../../../conformance/src/contract/spec-validator.ts';
import { createApp, createServices, defaultDeps } from '../app.ts';
import { ApiError } from '../errors.ts';

const MAILBOX = 'alice@acme.test';

function world() {
  const deps = defaultDeps({ logError: () => {} });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  services.directory.createMailbox({ address: MAILBOX });
  services.directory.grant(owner.id, MAILBOX);
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'app',
    scope: 'follow-owner',
  });
  const app = createApp(deps, services);
  const inject = (lines: string[], body = 'Hello.') =>
    services.inbound.injectRaw(Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}\r\n`, 'utf8'), {
      mailbox: MAILBOX,
    });
  const read = (id: string) =>
    app.request(`/openapi/v1/emails/${id}`, { headers: { Authorization: `Bearer ${secret}` } });
  return { deps, inject, read };
}

/** The ApiError `promise` rejects with (failing the test when it resolves or throws another). */
async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('raw messages the parser cannot read (issue 12 item 1)', () => {
  it('refuses a header block over 1 MiB with 400 invalid_message, storing nothing', async () => {
    const { deps, inject } = world();
    const error = await refusal(
      inject(['From: bob@partner.test', `X-Padding: ${'a'.repeat(1024 * 1024 + 1)}`]),
    );
    expect(error.toBody()).toMatchObject({ code: 'invalid_message', field: 'body' });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/1 MiB/);
    expect(deps.store.emails.count()).toBe(0);
  });

  it('refuses a MIME part whose own header block is over 1 MiB the same way', async () => {
    const { deps, inject } = world();
    const error = await refusal(
      inject(
        ['From: bob@partner.test', 'Content-Type: multipart/mixed; boundary=b'],
        `--b\r\nX-Padding: ${'a'.repeat(1024 * 1024 + 1)}\r\n\r\npart\r\n--b--`,
      ),
    );
    expect(error.toBody()).toMatchObject({ code: 'invalid_message', field: 'body' });
    expect(deps.store.emails.count()).toBe(0);
  });

  it('refuses a message of more MIME parts than the parser allows with 400 invalid_message', async () => {
    const { deps, inject } = world();
    const part = '--b\r\nContent-Type: text/plain\r\n\r\nx\r\n';
    const error = await refusal(
      inject(
        ['From: bob@partner.test', 'Content-Type: multipart/mixed; boundary=b'],
        `${part.repeat(1001)}--b--`,
      ),
    );
    expect(error.toBody()).toMatchObject({ code: 'invalid_message', field: 'body' });
    expect(deps.store.emails.count()).toBe(0);
  });
});

describe('sentAt of received mail (issue 12 item 10)', () => {
  it('is null when the Date header is unreadable, not the time of parsing', async () => {
    const { inject } = world();
    for (const date of ['nonsense', '', 'Fri, 20 Nov 12026 09:14:58 +0000']) {
      const email = await inject(['From: bob@partner.test', `Date: ${date}`]);
      expect(email.sentAt, date).toBeNull();
    }
  });

  it('is null when there is no Date header, and the Date as UTC when it is readable', async () => {
    const { inject } = world();
    expect((await inject(['From: bob@partner.test'])).sentAt).toBeNull();
    const folded = await inject([
      'From: bob@partner.test',
      'Date: Fri, 20 Nov\r\n 2026 10:14:58 +0100',
    ]);
    expect(folded.sentAt).toBe('2026-11-20T09:14:58.000Z');
  });
});

describe('group recipients (issue 12 item 11)', () => {
  it('expands the members of groups in To, Cc and Reply-To, in order, dropping the group name', async () => {
    const { inject } = world();
    const email = await inject([
      'From: bob@partner.test',
      'To: Team: a@x.test, "Bea" <b@x.test>;, c@x.test',
      'Cc: undisclosed-recipients:;, Ops: d@x.test;',
      'Reply-To: Billing: e@x.test, f@x.test;',
    ]);
    expect(email.to).toEqual([
      { address: 'a@x.test', name: null },
      { address: 'b@x.test', name: 'Bea' },
      { address: 'c@x.test', name: null },
    ]);
    expect(email.cc).toEqual([{ address: 'd@x.test', name: null }]);
    expect(email.replyTo.map((a) => a.address)).toEqual(['e@x.test', 'f@x.test']);
  });

  it('takes the sender from a From written as a group', async () => {
    const { inject } = world();
    const email = await inject(['From: Partner: bob@partner.test;', 'To: alice@acme.test']);
    expect(email.from).toEqual({ address: 'bob@partner.test', name: null });
  });
});

describe('addresses real mail carries (issue 12 item 12, D-50)', () => {
  /** The nine kinds of address of the issue: what the header says and what the API shows. */
  const KINDS: [kind: string, header: string, shown: string][] = [
    [
      'dot-atom with a tag, mixed case',
      'Bob.Stone+news@Partner.TEST',
      'bob.stone+news@partner.test',
    ],
    ['quoted local part with a space', '"john doe"@partner.test', '"john doe"@partner.test'],
    [
      'quoted local part with an escaped quote',
      '"say \\"hi\\""@partner.test',
      '"say \\"hi\\""@partner.test',
    ],
    ['IPv4 address literal', 'user@[192.0.2.1]', 'user@[192.0.2.1]'],
    ['IPv6 address literal', 'user@[IPv6:2001:DB8::1]', 'user@[IPv6:2001:db8::1]'],
    ['single-label domain', 'root@localhost', 'root@localhost'],
    ['internationalised domain', 'juergen@bücher.example', 'juergen@bücher.example'],
    [
      'internationalised domain as punycode',
      'juergen@XN--BCHER-KVA.example',
      'juergen@bücher.example',
    ],
    ['non-ASCII local part', 'jörg@例子.广告', 'jörg@例子.广告'],
  ];

  it('shows each kind in the canonical form D-50 gives, valid against EmailDetail as the suite validates it', async () => {
    const { inject, read } = world();
    const validator = new SpecValidator();
    for (const [kind, header, shown] of KINDS) {
      const email = await inject([`From: ${header}`, `To: ${header}`, `Cc: Some One <${header}>`]);
      expect(email.from.address, kind).toBe(shown);
      expect(email.to, kind).toEqual([{ address: shown, name: null }]);
      expect(email.cc, kind).toEqual([{ address: shown, name: 'Some One' }]);
      const response = await read(email.id);
      const body = new Uint8Array(await response.arrayBuffer());
      const violations = validator.validate({
        method: 'get',
        path: `/emails/${email.id}`,
        status: response.status,
        contentType: response.headers.get('content-type'),
        body,
      });
      expect(violations, kind).toEqual([]);
    }
  });

  it('unquotes a quoted local part that needs no quotes, and quotes one that does', async () => {
    const { inject } = world();
    const email = await inject([
      'From: bob@partner.test',
      'To: "Alice"@ACME.test, "john..doe"@partner.test, <"a@b"@partner.test>',
    ]);
    expect(email.to.map((a) => a.address)).toEqual([
      'alice@acme.test',
      '"john..doe"@partner.test',
      '"a@b"@partner.test',
    ]);
  });

  it('drops recipients that are not addresses, and refuses a message whose From is none', async () => {
    const { deps, inject } = world();
    const email = await inject([
      'From: bob@partner.test',
      `To: <@partner.test>, x@-bad-.test, y@[300.1.1.1], z@a_b.test, ${'l'.repeat(250)}@partner.test, ok@partner.test`,
    ]);
    expect(email.to.map((a) => a.address)).toEqual(['ok@partner.test']);
    const error = await refusal(inject(['From: <@partner.test>', 'To: alice@acme.test']));
    expect(error.toBody()).toMatchObject({ code: 'invalid_field', field: 'body' });
    expect(deps.store.emails.count()).toBe(1);
  });
});

describe('HTML-only received mail', () => {
  const html = ['From: bob@partner.test', 'To: alice@acme.test', 'Content-Type: text/html'];

  it('gets its text from its HTML', async () => {
    const { inject } = world();
    const email = await inject([...html, 'Subject: Hi'], '<p>Hello <b>there</b></p>');
    expect(email.text).toBe('Hello there');
    expect(email.html?.trim()).toBe('<p>Hello <b>there</b></p>');
  });

  it('is stored, HTML intact, however deeply its elements nest', async () => {
    const { inject } = world();
    const depth = 200_000;
    const bomb = `${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}`;
    const email = await inject([...html, 'Subject: Nested'], bomb);
    expect(email.html?.startsWith('<div><div>')).toBe(true);
    expect(email.html?.length).toBeGreaterThan(bomb.length);
  }, 60_000);
});
