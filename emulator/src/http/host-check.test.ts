// D-66 (issue 27 item 4): a web page that rebinds its DNS name to 127.0.0.1 reaches the
// emulator with its own name in `Host`; only names that cannot be rebound are answered.
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import type { AppDeps } from '../deps.ts';
import { hostAllowed, namesAuthority, type HostPolicy } from './host-check.ts';
import { serveWithJsonErrors } from './node-server.ts';

/** An emulator with one owner, mailbox and key; `hosts` as `--host`/`--allowed-hosts` give. */
function world(hosts?: AppDeps['hosts']) {
  const deps = defaultDeps({ logError: () => {}, ...(hosts === undefined ? {} : { hosts }) });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  services.directory.createMailbox({ address: 'hello@acme.test' });
  services.directory.grant(owner.id, 'hello@acme.test');
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'app',
    scope: 'follow-owner',
  });
  return { app: createApp(deps, services), deps, secret };
}

/** Every kind of path the emulator serves, with what each needs to be answered 200. */
function paths(apiKey: string, controlToken: string): [string, Record<string, string>][] {
  return [
    ['/openapi/v1/mailboxes', { Authorization: `Bearer ${apiKey}` }],
    ['/_mailtwin/v1/clock', { Authorization: `Bearer ${controlToken}` }],
    ['/openapi/openapi.json', {}],
    ['/openapi/docs', {}],
    ['/', {}],
    ['/dashboard/owners', {}],
    ['/content/attachments/0123456789abcdef0123456789abcdef/a.txt', {}],
    ['/unsubscribe/x', {}],
    ['/no/such/path', {}],
  ];
}

describe('the Host check (D-66)', () => {
  it('refuses a rebound name on every path with 403 host_not_allowed in the Error shape, even with the right key', async () => {
    const { app, deps, secret } = world();
    for (const [path, headers] of paths(secret, deps.controlToken)) {
      const answer = await app.request(path, {
        headers: { ...headers, Host: 'attacker.example:4025' },
      });
      expect(answer.status, path).toBe(403);
      expect(answer.headers.get('content-type'), path).toMatch(/^application\/json/);
      const body = (await answer.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort(), path).toEqual(['code', 'message']);
      expect(body.code, path).toBe('host_not_allowed');
      expect(body.message, path).toContain('"attacker.example:4025"');
      expect(body.message, path).toContain('--allowed-hosts attacker.example');
    }
  });

  it('answers the same requests under localhost, as app.request does with no Host', async () => {
    const { app, deps, secret } = world();
    const mailboxes = await app.request('/openapi/v1/mailboxes', {
      headers: { Authorization: `Bearer ${secret}`, Host: 'localhost:4025' },
    });
    expect(mailboxes.status).toBe(200);
    for (const [path, headers] of paths(secret, deps.controlToken)) {
      const answer = await app.request(path, { headers });
      expect(answer.status, path).not.toBe(403);
    }
  });

  it('never names a refused host in the served spec', async () => {
    const { app } = world();
    const refused = await app.request('/openapi/openapi.json', {
      headers: { Host: 'attacker.example:4025' },
    });
    expect(await refused.text()).not.toContain('"servers"');
    const served = await app.request('http://127.0.0.1:4025/openapi/openapi.json');
    expect(served.status).toBe(200);
  });

  it('serves names configured with --allowed-hosts, and every Host with all', async () => {
    const configured = world({ allowed: ['mail.test', '.dev.test'] });
    for (const host of ['mail.test', 'MAIL.TEST:80', 'dev.test', 'api.dev.test', 'a.b.dev.test']) {
      const answer = await configured.app.request('/openapi/openapi.json', {
        headers: { Host: host },
      });
      expect(answer.status, host).toBe(200);
    }
    const other = await configured.app.request('/openapi/openapi.json', {
      headers: { Host: 'xdev.test' },
    });
    expect(other.status).toBe(403);
    const open = world({ allowed: 'all' });
    const any = await open.app.request('/openapi/openapi.json', {
      headers: { Host: 'attacker.example' },
    });
    expect(any.status).toBe(200);
  });
});

describe('hostAllowed', () => {
  const none: HostPolicy = { allowed: [] };

  it.each([
    'localhost',
    'localhost:4025',
    'LOCALHOST.',
    'app.localhost:4025',
    '127.0.0.1',
    '127.0.0.1:4025',
    '127.255.0.9:80',
    '[::1]:4025',
    '[::1]',
    // No DNS answer leads to an IP literal, so no page elsewhere can send one (as Vite).
    '192.168.1.20:4025',
    '[2001:db8::1]:4025',
  ])('serves %s by default', (host) => {
    expect(hostAllowed(host, none)).toBe(true);
  });

  it.each([
    'attacker.example',
    'attacker.example:4025',
    'localhost.attacker.example',
    '127.0.0.1.nip.io',
    'localhostx',
    'user@localhost',
    'localhost/evil',
    'local host',
    '',
    '[::1',
  ])('refuses %j by default', (host) => {
    expect(hostAllowed(host, none)).toBe(false);
  });

  it('serves the name --host gives, but no other name under it', () => {
    const policy: HostPolicy = { allowed: [], boundHost: 'devbox.lan' };
    expect(hostAllowed('devbox.lan:4025', policy)).toBe(true);
    expect(hostAllowed('DevBox.LAN.', policy)).toBe(true);
    expect(hostAllowed('x.devbox.lan', policy)).toBe(false);
  });
});

describe('namesAuthority', () => {
  // What the check read the URL's authority with before it asked the Host header only.
  const authorityOf = (url: string) => /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';

  it('says a URL names an authority exactly when the pattern reads that authority from it', () => {
    const authorities = ['127.0.0.1:4025', 'localhost', '[::1]:80', 'a.b', 'a', 'a/b', 'a?b', ''];
    const rests = ['', '/', '/x?y#z', '?q', '#f', ':80/', 'x/', '.evil/'];
    for (const scheme of ['http://', 'https://', 'HTTP://', 'ftp://', 'http:/'])
      for (const authority of authorities)
        for (const url of authorities.flatMap((a) => rests.map((r) => `${scheme}${a}${r}`))) {
          const names = namesAuthority(url, authority);
          if (names) expect(authorityOf(url)).toBe(authority);
          // Every URL the server builds from a Host header is read without the pattern.
          if (url === `${scheme}${authority}/x?y#z`)
            expect(names).toBe(
              (scheme === 'http://' || scheme === 'https://') && !/[/?#]/.test(authority),
            );
        }
  });
});

describe('the Host check over a real socket', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const { app } = world({ allowed: [], boundHost: '127.0.0.1' });
    await new Promise<void>((resolve) => {
      server = serveWithJsonErrors({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
        port = info.port;
        resolve();
      });
    });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function raw(request: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('end', () => {
        const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), body });
      });
      socket.write(request);
    });
  }

  it('refuses a rebinding page (curl -H "Host: attacker.example:4025")', async () => {
    const answer = await raw(
      'GET /openapi/v1/mailboxes HTTP/1.1\r\nHost: attacker.example:4025\r\nConnection: close\r\n\r\n',
    );
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'host_not_allowed' });
  });

  it('refuses an absolute request target naming another host, whatever Host says', async () => {
    const answer = await raw(
      'GET http://attacker.example/openapi/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    expect(answer.status).toBe(403);
  });

  it('answers an HTTP/1.0 request without Host (the bound address stands in)', async () => {
    const answer = await raw('GET /openapi/openapi.json HTTP/1.0\r\n\r\n');
    expect(answer.status).toBe(200);
  });
});
