import { describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from './app.ts';
import { banner, loadedSecrets } from './banner.ts';
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
});
