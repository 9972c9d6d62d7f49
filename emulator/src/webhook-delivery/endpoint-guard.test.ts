/**
 * Given a webhook URL (and, for names, what a fake DNS answers), when the guard checks it at
 * creation and again before a delivery, then only public targets pass (§2.5, §6.4, D-45).
 * The resolver is a Map; nothing here resolves or connects for real.
 */
import { describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  isPublicAddress,
  resolvePublicAddresses,
  UnsafeWebhookTarget,
  type GuardOptions,
  type Resolver,
  type UnsafeTargetCode,
} from './endpoint-guard.ts';

const strict: GuardOptions = { allowLoopback: false };
const loopbackAllowed: GuardOptions = { allowLoopback: true };

const DNS = new Map<string, string[]>([
  ['hooks.example.com', ['93.184.216.34']],
  ['hooks.example.com.', ['93.184.216.34']],
  ['example.com', ['93.184.216.34']],
  ['dual.example.net', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']],
  ['xn--mnchen-3ya.example.org', ['1.1.1.1']],
  ['localhost', ['127.0.0.1', '::1']],
  ['api.localhost', ['127.0.0.1']],
  ['public.localhost', ['93.184.216.34']],
  ['loopback.example.com', ['127.0.0.1']],
  ['loopback6.example.com', ['::1']],
  ['unspecified.example.com', ['0.0.0.0']],
  ['unspecified6.example.com', ['::']],
  ['ten.example.com', ['10.1.2.3']],
  ['one-seventy-two.example.com', ['172.20.0.5']],
  ['one-ninety-two.example.com', ['192.168.10.10']],
  ['metadata.example.com', ['169.254.169.254']],
  ['linklocal6.example.com', ['fe80::1']],
  ['cgnat.example.com', ['100.64.1.1']],
  ['cgnat-high.example.com', ['100.127.255.254']],
  ['multicast.example.com', ['224.0.0.251']],
  ['multicast6.example.com', ['ff02::1']],
  ['broadcast.example.com', ['255.255.255.255']],
  ['ula.example.com', ['fd00::1']],
  ['ula-fc.example.com', ['fc00::5']],
  ['mapped.example.com', ['::ffff:10.0.0.1']],
  ['mapped-loopback.example.com', ['::ffff:127.0.0.1']],
  ['compat.example.com', ['::7f00:1']],
  ['nat64.example.com', ['64:ff9b::a00:1']],
  ['documentation.example.com', ['192.0.2.10']],
  ['rebind.example.com', ['93.184.216.34', '127.0.0.1']],
  ['rebind6.example.com', ['2606:4700:4700::1111', '10.0.0.1']],
  ['rebind-metadata.example.com', ['93.184.216.34', '169.254.169.254']],
  ['garbage.example.com', ['not-an-address']],
  ['octal.example.com', ['0177.0.0.1']],
  ['private-but-loopback-on.example.com', ['10.0.0.1']],
  ['empty.example.com', []],
]);

/** Answers from DNS above; an unknown name fails as getaddrinfo does. Records every lookup. */
function fakeResolver(): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string) => {
    calls.push(hostname);
    if (hostname === 'servfail.example.com') throw new Error('resolver exploded');
    const answers = DNS.get(hostname);
    if (answers === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return answers.map((address) => ({
      address,
      family: (address.includes(':') ? 6 : 4) as 4 | 6,
    }));
  };
  return Object.assign(resolver, { calls });
}

/** Creation check, then the delivery check: the code of the first refusal, or the addresses. */
async function guard(url: string, options: GuardOptions): Promise<string[]> {
  return resolvePublicAddresses(checkWebhookUrl(url, options), fakeResolver(), options);
}

async function refusal(url: string, options: GuardOptions): Promise<UnsafeWebhookTarget> {
  try {
    await guard(url, options);
  } catch (error) {
    expect(error).toBeInstanceOf(UnsafeWebhookTarget);
    return error as UnsafeWebhookTarget;
  }
  throw new Error(`${url} was accepted`);
}

type Refused = [klass: string, url: string, code: UnsafeTargetCode];

/** Refused by `checkWebhookUrl` alone, before any lookup. */
const refusedAtCreation: Refused[] = [
  // IPv4 loopback in every notation WHATWG URL normalizes
  ['loopback dotted', 'http://127.0.0.1/', 'non_public_address'],
  ['loopback decimal', 'http://2130706433/', 'non_public_address'],
  ['loopback octal', 'http://0177.0.0.1/', 'non_public_address'],
  ['loopback hex+short', 'http://0x7f.1/', 'non_public_address'],
  ['loopback hex whole', 'http://0x7f000001/', 'non_public_address'],
  ['loopback octal whole', 'http://017700000001/', 'non_public_address'],
  ['loopback short', 'http://127.1/', 'non_public_address'],
  ['loopback trailing dot', 'http://127.0.0.1./', 'non_public_address'],
  ['loopback fullwidth digits', 'http://１２７.０.０.１/', 'non_public_address'],
  ['loopback ideographic dots', 'http://127。0。0。1/', 'non_public_address'],
  ['loopback percent-encoded', 'http://%31%32%37.0.0.1/', 'non_public_address'],
  ['loopback top of /8', 'https://127.255.255.254:8443/x', 'non_public_address'],
  // unspecified
  ['unspecified "0"', 'http://0/', 'non_public_address'],
  ['unspecified 0.0.0.0', 'http://0.0.0.0:8080/', 'non_public_address'],
  ['unspecified 0.0.0.0/8', 'http://0.1.2.3/', 'non_public_address'],
  ['unspecified IPv6', 'http://[::]/', 'non_public_address'],
  ['unspecified IPv6 long', 'http://[0:0:0:0:0:0:0:0]:80/', 'non_public_address'],
  // IPv6 loopback, unique-local, link-local, multicast
  ['IPv6 loopback', 'http://[::1]/', 'non_public_address'],
  ['IPv6 loopback long', 'http://[0:0:0:0:0:0:0:1]:9999/', 'non_public_address'],
  ['IPv6 unique-local fc00::/7', 'http://[fc00::1]/', 'non_public_address'],
  ['IPv6 unique-local fd', 'https://[fd12:3456:789a::1]/hook', 'non_public_address'],
  ['IPv6 link-local', 'http://[fe80::1]/', 'non_public_address'],
  ['IPv6 link-local long', 'http://[fe80::a:b:c:d]:8080/', 'non_public_address'],
  ['IPv6 multicast all-nodes', 'http://[ff02::1]/', 'non_public_address'],
  ['IPv6 multicast site', 'http://[ff05::2]/', 'non_public_address'],
  // IPv4 hidden in IPv6
  ['IPv4-mapped loopback dotted', 'http://[::ffff:127.0.0.1]/', 'non_public_address'],
  ['IPv4-mapped loopback hex', 'http://[::ffff:7f00:1]/', 'non_public_address'],
  ['IPv4-mapped private', 'http://[::ffff:10.0.0.1]/', 'non_public_address'],
  ['IPv4-mapped metadata', 'http://[0:0:0:0:0:ffff:169.254.169.254]/', 'non_public_address'],
  ['IPv4-compatible loopback', 'http://[::127.0.0.1]/', 'non_public_address'],
  ['IPv4-compatible loopback hex', 'http://[::7f00:1]/', 'non_public_address'],
  ['IPv4-translated (RFC 6145)', 'http://[::ffff:0:7f00:1]/', 'non_public_address'],
  ['NAT64 private', 'http://[64:ff9b::10.0.0.1]/', 'non_public_address'],
  ['NAT64 loopback', 'http://[64:ff9b::127.0.0.1]/', 'non_public_address'],
  ['6to4 private', 'http://[2002:a00:1::]/', 'non_public_address'],
  ['6to4 loopback', 'http://[2002:7f00:1::1]/', 'non_public_address'],
  ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'non_public_address'],
  ['Teredo short', 'http://[2001::1]/', 'non_public_address'],
  // RFC 1918
  ['private 10/8', 'http://10.0.0.1/', 'non_public_address'],
  ['private 10/8 top', 'http://10.255.255.255/', 'non_public_address'],
  ['private 10/8 decimal', 'http://167772161/', 'non_public_address'],
  ['private 172.16/12', 'http://172.16.0.1/', 'non_public_address'],
  ['private 172.16/12 top', 'http://172.31.255.254/', 'non_public_address'],
  ['private 192.168/16', 'http://192.168.0.1/', 'non_public_address'],
  ['private 192.168/16 port', 'http://192.168.1.1:8080/hook', 'non_public_address'],
  ['private 192.168/16 hex', 'http://0xc0.0xa8.1.1/', 'non_public_address'],
  // link-local and cloud metadata
  ['metadata', 'http://169.254.169.254/latest/meta-data/', 'non_public_address'],
  ['metadata decimal', 'http://2852039166/', 'non_public_address'],
  ['link-local', 'http://169.254.0.1/', 'non_public_address'],
  // CGNAT, multicast, broadcast
  ['CGNAT 100.64/10', 'http://100.64.0.1/', 'non_public_address'],
  ['CGNAT top', 'http://100.127.255.254/', 'non_public_address'],
  ['multicast 224/4', 'http://224.0.0.1/', 'non_public_address'],
  ['multicast SSDP', 'http://239.255.255.250:1900/', 'non_public_address'],
  ['broadcast', 'http://255.255.255.255/', 'non_public_address'],
  ['broadcast decimal', 'http://4294967295/', 'non_public_address'],
  // documentation, benchmarking, reserved
  ['TEST-NET-1', 'http://192.0.2.1/', 'non_public_address'],
  ['TEST-NET-2', 'http://198.51.100.7/', 'non_public_address'],
  ['benchmarking 198.18/15', 'http://198.18.0.1/', 'non_public_address'],
  ['class E 240/4', 'http://240.0.0.1/', 'non_public_address'],
  ['IPv6 documentation', 'http://[2001:db8::1]/', 'non_public_address'],
  ['IPv6 documentation 3fff::/20', 'http://[3fff::1]/', 'non_public_address'],
  // obviously local names
  ['localhost', 'http://localhost/', 'local_hostname'],
  ['localhost with port', 'http://localhost:9999/', 'local_hostname'],
  ['localhost upper-case, trailing dot', 'http://LOCALHOST./', 'local_hostname'],
  ['localhost in circled letters', 'http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/', 'local_hostname'],
  ['*.localhost', 'http://api.localhost/', 'local_hostname'],
  ['*.local', 'http://printer.local/', 'local_hostname'],
  ['*.internal', 'http://metadata.google.internal/', 'local_hostname'],
  ['*.home.arpa', 'http://router.home.arpa/', 'local_hostname'],
  ['single label', 'http://intranet/', 'local_hostname'],
  ['single label with port', 'https://build-server:8443/hook', 'local_hostname'],
  // schemes
  ['ftp:', 'ftp://example.com/', 'scheme_not_allowed'],
  ['file:', 'file:///etc/passwd', 'scheme_not_allowed'],
  ['gopher:', 'gopher://example.com/', 'scheme_not_allowed'],
  ['javascript:', 'javascript:alert(1)', 'scheme_not_allowed'],
  ['data:', 'data:text/plain,hello', 'scheme_not_allowed'],
  ['ws:', 'ws://example.com/', 'scheme_not_allowed'],
  // credentials
  ['user and password', 'https://user:pass@example.com/', 'credentials_in_url'],
  ['user only', 'https://user@example.com/', 'credentials_in_url'],
  ['password only', 'https://:pass@example.com/', 'credentials_in_url'],
  ['userinfo that looks like a host', 'http://example.com@127.0.0.1/', 'credentials_in_url'],
  // fragments, length, syntax
  ['empty fragment', 'https://example.com/#', 'fragment_in_url'],
  ['fragment', 'https://example.com/hook#section', 'fragment_in_url'],
  ['not a URL', 'not a url', 'invalid_url'],
  ['relative', '/webhooks/mail', 'invalid_url'],
  ['no host', 'https://', 'invalid_url'],
  ['space in host', 'http://exa mple.com/', 'invalid_url'],
  ['name ending in a number', 'http://foo.123/', 'invalid_url'],
  ['IPv4 out of range', 'http://256.1/', 'invalid_url'],
  ['port 0', 'https://example.com:0/', 'invalid_url'],
];

/** Pass the creation check; refused before delivery because of what the name resolves to. */
const refusedAtDelivery: Refused[] = [
  ['name → loopback', 'https://loopback.example.com/', 'non_public_address'],
  ['name → IPv6 loopback', 'https://loopback6.example.com/', 'non_public_address'],
  ['name → 0.0.0.0', 'https://unspecified.example.com/', 'non_public_address'],
  ['name → ::', 'https://unspecified6.example.com/', 'non_public_address'],
  ['name → 10/8', 'https://ten.example.com/', 'non_public_address'],
  ['name → 172.16/12', 'https://one-seventy-two.example.com/', 'non_public_address'],
  ['name → 192.168/16', 'https://one-ninety-two.example.com/', 'non_public_address'],
  ['name → metadata', 'https://metadata.example.com/', 'non_public_address'],
  ['name → IPv6 link-local', 'https://linklocal6.example.com/', 'non_public_address'],
  ['name → CGNAT', 'https://cgnat.example.com/', 'non_public_address'],
  ['name → CGNAT top', 'https://cgnat-high.example.com/', 'non_public_address'],
  ['name → multicast', 'https://multicast.example.com/', 'non_public_address'],
  ['name → IPv6 multicast', 'https://multicast6.example.com/', 'non_public_address'],
  ['name → broadcast', 'https://broadcast.example.com/', 'non_public_address'],
  ['name → unique-local fd', 'https://ula.example.com/', 'non_public_address'],
  ['name → unique-local fc', 'https://ula-fc.example.com/', 'non_public_address'],
  ['name → IPv4-mapped private', 'https://mapped.example.com/', 'non_public_address'],
  ['name → IPv4-mapped loopback', 'https://mapped-loopback.example.com/', 'non_public_address'],
  ['name → IPv4-compatible', 'https://compat.example.com/', 'non_public_address'],
  ['name → NAT64 private', 'https://nat64.example.com/', 'non_public_address'],
  ['name → documentation', 'https://documentation.example.com/', 'non_public_address'],
  ['rebinding: public + loopback', 'https://rebind.example.com/', 'non_public_address'],
  ['rebinding: IPv6 public + private', 'https://rebind6.example.com/', 'non_public_address'],
  ['rebinding: public + metadata', 'https://rebind-metadata.example.com/', 'non_public_address'],
  ['answer not an address', 'https://garbage.example.com/', 'non_public_address'],
  ['answer not canonical', 'https://octal.example.com/', 'non_public_address'],
  ['unknown name', 'https://nxdomain.example.com/', 'unresolvable_host'],
  ['no answers', 'https://empty.example.com/', 'unresolvable_host'],
  ['resolver throws', 'https://servfail.example.com/', 'unresolvable_host'],
];

describe('refused when the webhook is created', () => {
  it.each(refusedAtCreation)('refuses %s: %s with %s', (_klass, url, code) => {
    let thrown: unknown;
    try {
      checkWebhookUrl(url, strict);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnsafeWebhookTarget);
    expect((thrown as UnsafeWebhookTarget).code).toBe(code);
    expect((thrown as UnsafeWebhookTarget).message.length).toBeGreaterThan(20);
  });
});

describe('URL length', () => {
  it('refuses a URL longer than 2048 characters with url_too_long', () => {
    const url = `https://example.com/${'a'.repeat(2029)}`;
    expect(() => checkWebhookUrl(url.slice(0, 2048), strict)).not.toThrow();
    expect(() => checkWebhookUrl(url, strict)).toThrow(
      expect.objectContaining({ code: 'url_too_long' }),
    );
  });

  it('refuses a URL longer than 2048 characters once percent-encoded with url_too_long', () => {
    const url = `https://example.com/${'é'.repeat(400)}`;
    expect(url.length).toBeLessThan(2048);
    expect(() => checkWebhookUrl(url, strict)).toThrow(
      expect.objectContaining({ code: 'url_too_long' }),
    );
  });
});

describe('refused before every delivery', () => {
  it.each(refusedAtDelivery)('refuses %s: %s with %s', async (_klass, url, code) => {
    const target = checkWebhookUrl(url, strict);
    await expect(resolvePublicAddresses(target, fakeResolver(), strict)).rejects.toMatchObject({
      name: 'UnsafeWebhookTarget',
      code,
    });
  });

  it('names the private answer of a rebinding name in the message', async () => {
    const error = await refusal('https://rebind.example.com/', strict);
    expect(error.message).toContain('127.0.0.1');
    expect(error.message).toContain('--allow-loopback-webhooks');
  });

  it('looks the name up again at each attempt', async () => {
    const target = checkWebhookUrl('https://hooks.example.com/x', strict);
    const resolver = fakeResolver();
    await resolvePublicAddresses(target, resolver, strict);
    await resolvePublicAddresses(target, resolver, strict);
    expect(resolver.calls).toEqual(['hooks.example.com', 'hooks.example.com']);
  });

  it('refuses a localhost target stored with the option once the option is off', async () => {
    const target = checkWebhookUrl('http://localhost:9999/', loopbackAllowed);
    await expect(resolvePublicAddresses(target, fakeResolver(), strict)).rejects.toMatchObject({
      code: 'local_hostname',
    });
  });
});

type Accepted = [url: string, addresses: string[], port: number, isIpLiteral: boolean];

const accepted: Accepted[] = [
  ['https://hooks.example.com/x', ['93.184.216.34'], 443, false],
  ['http://hooks.example.com:8080/mail?token=abc&v=2', ['93.184.216.34'], 8080, false],
  ['https://HOOKS.EXAMPLE.COM./path', ['93.184.216.34'], 443, false],
  ['https://example.com/a/b?c=d&e=f', ['93.184.216.34'], 443, false],
  [
    'https://dual.example.net/hook',
    ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    443,
    false,
  ],
  ['https://münchen.example.org/webhook', ['1.1.1.1'], 443, false],
  ['https://8.8.8.8/', ['8.8.8.8'], 443, true],
  ['https://1.1.1.1:8443/webhooks/mail', ['1.1.1.1'], 8443, true],
  ['https://134744072/', ['8.8.8.8'], 443, true],
  ['https://[2606:4700:4700::1111]/', ['2606:4700:4700::1111'], 443, true],
  ['http://[2606:4700:4700:0:0:0:0:1001]:8080/x?y=z', ['2606:4700:4700::1001'], 8080, true],
  ['https://[::ffff:8.8.8.8]/', ['8.8.8.8'], 443, true],
  ['https://172.32.0.1/', ['172.32.0.1'], 443, true],
  ['https://100.128.0.1/', ['100.128.0.1'], 443, true],
  ['https://11.0.0.1/', ['11.0.0.1'], 443, true],
  ['http://203.0.114.1/', ['203.0.114.1'], 80, true],
];

describe('public targets', () => {
  it.each(accepted)('accepts %s', async (url, addresses, port, isIpLiteral) => {
    const target = checkWebhookUrl(url, strict);
    expect(target.port).toBe(port);
    expect(target.isIpLiteral).toBe(isIpLiteral);
    const resolver = fakeResolver();
    expect(await resolvePublicAddresses(target, resolver, strict)).toEqual(addresses);
    // An IP literal is checked as it stands; only names are looked up.
    expect(resolver.calls).toEqual(isIpLiteral ? [] : [target.hostname]);
  });
});

describe('--allow-loopback-webhooks', () => {
  const loopbackTargets: [string, string[]][] = [
    ['http://127.0.0.1:9999/', ['127.0.0.1']],
    ['http://127.1:9999/hook', ['127.0.0.1']],
    ['http://[::1]:9999/', ['::1']],
    ['http://localhost:9999/', ['127.0.0.1', '::1']],
    ['http://api.localhost:9999/', ['127.0.0.1']],
  ];

  it.each(loopbackTargets)('accepts %s with the option', async (url, addresses) => {
    expect(await guard(url, loopbackAllowed)).toEqual(addresses);
  });

  it.each(loopbackTargets)('refuses %s without the option', async (url) => {
    const error = await refusal(url, strict);
    expect(['non_public_address', 'local_hostname']).toContain(error.code);
    expect(error.message).toContain('--allow-loopback-webhooks');
  });

  const stillRefused: Refused[] = [
    ['private', 'http://10.0.0.1/', 'non_public_address'],
    ['metadata', 'http://169.254.169.254/', 'non_public_address'],
    ['metadata decimal', 'http://2852039166/', 'non_public_address'],
    ['unspecified', 'http://0.0.0.0:9999/', 'non_public_address'],
    ['IPv6 unspecified', 'http://[::]:9999/', 'non_public_address'],
    ['unique-local', 'http://[fc00::1]/', 'non_public_address'],
    ['name → private', 'https://private-but-loopback-on.example.com/', 'non_public_address'],
    ['localhost name → public address', 'http://public.localhost/', 'non_public_address'],
    ['*.local', 'http://printer.local/', 'local_hostname'],
    ['single label', 'http://intranet:9999/', 'local_hostname'],
  ];

  it.each(stillRefused)('still refuses %s: %s with %s', async (_klass, url, code) => {
    expect((await refusal(url, loopbackAllowed)).code).toBe(code);
  });
});

describe('isPublicAddress', () => {
  it.each([
    ['93.184.216.34', strict, true],
    ['2606:4700:4700::1111', strict, true],
    ['127.0.0.1', strict, false],
    ['127.0.0.1', loopbackAllowed, true],
    ['::1', loopbackAllowed, true],
    ['10.0.0.1', loopbackAllowed, false],
    ['::ffff:127.0.0.1', loopbackAllowed, true],
    ['::7f00:1', loopbackAllowed, false],
    ['4000::1', strict, false],
    ['0177.0.0.1', loopbackAllowed, false],
    ['example.com', strict, false],
  ] as const)('%s with %o is %s', (address, options, expected) => {
    expect(isPublicAddress(address, options)).toBe(expected);
  });
});
