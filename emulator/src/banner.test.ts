import { describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from './app.ts';
import { banner, isLoopbackHost, loadedSecrets } from './banner.ts';
import { parseServeOptions, type ServeOptions } from './cli-options.ts';

/** The banner of `mailtwin serve <argv>` started empty, as a list of lines. */
function bannerOf(argv: string[]): string[] {
  const options = parseServeOptions(['--no-demo', ...argv]) as ServeOptions;
  const services = createServices(
    defaultDeps({ deliveryDelayMs: options.deliveryDelayMs, controlToken: 'mt_a+b/c=' }),
  );
  return banner({
    origin: 'http://127.0.0.1:4025',
    options,
    loaded: { kind: 'none' },
    secrets: loadedSecrets(undefined),
    fixturePath: null,
    services,
    demo: undefined,
    pid: 4242,
  }).split('\n');
}

describe('the start-up banner', () => {
  it('says when mail to mailboxes here is delayed (--delivery-delay-ms), and that it is lost at a stop', () => {
    expect(bannerOf(['--delivery-delay-ms', '2500'])).toContain(
      '  Note       mail sent to a mailbox here arrives 2500 ms after the send answers (--delivery-delay-ms); lost if mailtwin stops first',
    );
  });

  it('says nothing about delivery when it is immediate (the default)', () => {
    expect(bannerOf([]).filter((line) => line.includes('delivery-delay'))).toEqual([]);
    expect(bannerOf(['--delivery-delay-ms', '0']).join('\n')).not.toContain('arrives');
  });

  it('prints the dashboard at the origin and a sign-in URL carrying the control token once', () => {
    const lines = bannerOf([]);
    expect(lines).toContain('  Dashboard  http://127.0.0.1:4025/');
    const signIn = lines.filter((line) => line.includes('/dashboard/sign-in'));
    expect(signIn).toEqual([
      "  Sign in    http://127.0.0.1:4025/dashboard/sign-in?token=mt_a%2Bb%2Fc%3D (open once: it sets the dashboard's cookie)",
    ]);
  });

  it.each(['0.0.0.0', '::', '192.168.1.20', 'devbox.lan'])(
    'warns that --host %s exposes the emulator beyond this machine (D-66)',
    (host) => {
      const warnings = bannerOf(['--host', host]).filter((line) => line.includes('exposes'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        new RegExp(`^  Warning    --host ${host.replace(/\./g, '\\.')} exposes the emulator to `),
      );
    },
  );

  it.each(['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'])(
    'does not warn for the loopback --host %s',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
      expect(bannerOf(['--host', host]).join('\n')).not.toContain('Warning');
    },
  );

  it('warns that --allowed-hosts all lets any web page in by DNS rebinding', () => {
    const lines = bannerOf(['--allowed-hosts', 'all']);
    expect(lines.filter((line) => line.includes('DNS rebinding'))).toEqual([
      '  Warning    --allowed-hosts all: every Host is answered, so any web page open in a browser on this machine can read, send and delete its mail by DNS rebinding',
    ]);
    expect(bannerOf(['--allowed-hosts', 'mail.test']).join('\n')).not.toContain('Warning');
  });
});
