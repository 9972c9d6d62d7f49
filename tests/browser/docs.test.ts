import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, defaultDeps } from '../../emulator/src/app.ts';

/** The 10 operations of §4, as Swagger UI shows them (method, path). */
const OPERATIONS = [
  ['GET', '/mailboxes'],
  ['GET', '/emails'],
  ['POST', '/emails/send'],
  ['GET', '/emails/{emailId}'],
  ['PATCH', '/emails/{emailId}'],
  ['DELETE', '/emails/{emailId}'],
  ['POST', '/emails/{emailId}/reply'],
  ['POST', '/emails/{emailId}/forward'],
  ['POST', '/attachments'],
  ['GET', '/attachments/{attachmentId}'],
];

// Debian's chromium (installed by .ci/run); flags keep it from calling Google's services.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

describe('the interactive reference at /openapi/docs', () => {
  let server: ServerType;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    const app = createApp(defaultDeps());
    const address = await new Promise<AddressInfo>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, resolve);
    });
    origin = `http://127.0.0.1:${address.port}`;
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('renders all 10 operations offline, with nothing blocked and no console error', async () => {
    const page = await browser.newPage();
    const blocked: string[] = [];
    const consoleErrors: string[] = [];
    const requested: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    // Every request that would leave loopback is aborted and remembered.
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      requested.push(url.href);
      const loopback =
        url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
      if (url.protocol === 'data:' || loopback) await route.continue();
      else {
        blocked.push(url.href);
        await route.abort();
      }
    });

    await page.goto(`${origin}/openapi/docs`, { waitUntil: 'networkidle' });
    await page.waitForSelector('.opblock', { timeout: 30_000 });

    const rendered = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => [
        block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '',
        block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ??
          block.querySelector('.opblock-summary-path')?.textContent?.trim() ??
          '',
      ]),
    );
    for (const [method, path] of OPERATIONS) {
      expect(rendered, `${method} ${path} is rendered`).toContainEqual([method, path]);
    }
    expect(
      requested.some((url) => url.endsWith('/openapi/openapi.json')),
      'the page loaded the spec',
    ).toBe(true);
    expect(blocked, 'requests that tried to leave loopback').toEqual([]);
    expect(consoleErrors, 'console errors').toEqual([]);
    await page.close();
  });
});
