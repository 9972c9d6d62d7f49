import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createServices, defaultDeps } from '../../emulator/src/app.ts';
import type { Services } from '../../emulator/src/deps.ts';
import { DEFAULT_FIXTURES } from '../../emulator/src/cli-options.ts';
import { signInUrl } from '../../emulator/src/dashboard/session.ts';
import { loadFixtureFile } from '../../emulator/src/fixtures/load-fixture.ts';

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

/** One screenshot per page, kept as test artefacts (reports/ is not committed). */
const SCREENSHOTS = 'reports/dashboard-screenshots';
const TOKEN = 'mt_browser-dashboard-test';
const DEMO_KEY = 'sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU';

/** An HTML email that tries every way of running script it can think of. */
const HOSTILE_HTML = `<html><head><script>document.title = 'ran-head'; window.top.document.title = 'ran-top';</script></head>
<body onload="document.body.dataset.ran = 'onload'; window.top.document.title = 'ran-onload'">
<p id="visible">Quarterly numbers attached.</p>
<img src="data:," onerror="document.body.dataset.ran = 'onerror'; window.top.document.title = 'ran-onerror'">
<svg onload="document.body.dataset.ran = 'svg'"><rect width="1" height="1"/></svg>
<script>document.body.dataset.ran = 'script'; window.top.postMessage('ran', '*');</script>
<iframe srcdoc="<script>parent.document.body.dataset.ran = 'srcdoc'</script>"></iframe>
<a id="jslink" href="javascript:document.body.dataset.ran='link'">link</a>
<form action="javascript:document.body.dataset.ran='form'"><button id="jsform">go</button></form>
</body></html>`;

describe('the web dashboard in Chromium', () => {
  let server: ServerType;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let services: Services;
  let plainEmailId: string;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const deps = defaultDeps({ controlToken: TOKEN, allowLoopbackWebhooks: true });
    services = createServices(deps);
    await loadFixtureFile(services, DEFAULT_FIXTURES);
    const app = createApp(deps, services);
    const address = await new Promise<AddressInfo>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, resolve);
    });
    origin = `http://127.0.0.1:${address.port}`;
    deps.selfOrigin.value = origin; // the demo webhook posts to {origin}/_mailtwin/sink
    // Something in the outbox: mail to an address outside the emulator is captured there.
    for (const [to, subject] of [
      ['Dana Buyer <dana@customer.example>', 'Your quote Q-2211'],
      ['ap@supplier.example', 'Remittance for invoice 4471'],
    ]) {
      const sent = await fetch(`${origin}/openapi/v1/emails/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: 'hello@acme.test', to, subject, text: 'Details below.' }),
      });
      expect(sent.status).toBe(201);
    }
    plainEmailId = services.inbound.injectJson({
      mailbox: 'support@acme.test',
      from: 'Lee Customer <lee@customer.example>',
      to: ['support@acme.test'],
      subject: 'Printer jammed again',
      html: '<h2>Hello support</h2><p>The printer on floor 3 jammed <b>again</b>.</p>',
      text: 'Hello support. The printer on floor 3 jammed again.',
    }).id;
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const signIn = await context.newPage();
    await signIn.goto(signInUrl(origin, TOKEN));
    await signIn.close();
  });

  afterAll(async () => {
    await browser?.close();
    if (server === undefined) return;
    (server as Server).closeAllConnections(); // the event streams stay open otherwise
    await new Promise((resolve) => server.close(resolve));
  });

  /** A page that records console errors, page errors and dialogs, and blocks leaving loopback. */
  async function watchedPage(): Promise<{ page: Page; errors: string[]; blocked: string[] }> {
    const page = await context.newPage();
    const errors: string[] = [];
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('dialog', (dialog) => {
      errors.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1' || url.protocol === 'data:') await route.continue();
      else {
        blocked.push(url.href);
        await route.abort();
      }
    });
    return { page, errors, blocked };
  }

  it('signs in through the banner URL with an HttpOnly, SameSite=Strict cookie', async () => {
    const cookies = await context.cookies(origin);
    expect(cookies).toEqual([
      expect.objectContaining({ name: 'mailtwin_dashboard', httpOnly: true, sameSite: 'Strict' }),
    ]);
    const anonymous = await browser.newContext();
    const page = await anonymous.newPage();
    const answer = await page.goto(`${origin}/`);
    expect(answer?.status()).toBe(401);
    await anonymous.close();
  });

  /** Each page: its name (the screenshot's), its path, and what shows it has rendered. */
  const PAGES: [string, () => string, string][] = [
    ['owners', () => '/', '.owner'],
    ['mailbox', () => '/dashboard/mailboxes/billing%40acme.test', 'tr[data-email-id]'],
    ['email', () => `/dashboard/emails/${plainEmailId}`, 'iframe.mail'],
    ['outbox', () => '/dashboard/outbox', 'tr[data-outbox-id]'],
    [
      'outbox-message',
      () => `/dashboard/outbox/${services.deps.store.outbox.list()[0]?.id ?? ''}`,
      'pre.source',
    ],
    ['webhooks', () => '/dashboard/webhooks', 'tr[data-webhook-id]'],
    ['webhook', () => '/dashboard/webhooks/wh_demo_sink', '.delivery'],
    ['keys', () => '/dashboard/keys', 'tr[data-key-id]'],
    ['suppressions', () => '/dashboard/suppressions', 'table.suppressions td'],
    ['clock', () => '/dashboard/clock', '#clock-now'],
  ];

  it.each(PAGES)(
    'loads the %s page with no console error, and saves its screenshot',
    async (name, path, selector) => {
      const { page, errors, blocked } = await watchedPage();
      const answer = await page.goto(`${origin}${path()}`);
      expect(answer?.status()).toBe(200);
      await page.waitForSelector(selector);
      if (name === 'email') {
        const body = page.frameLocator('iframe.mail').locator('body');
        await expect.poll(() => body.innerText()).toContain('jammed again');
      }
      await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
      expect(errors, 'console errors').toEqual([]);
      expect(blocked, 'requests leaving loopback').toEqual([]);
      await page.close();
    },
  );

  it.each(PAGES)(
    'fits the %s page in a 390 px wide screen with no horizontal scrolling',
    async (name, path, selector) => {
      const phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 1,
        isMobile: true,
        hasTouch: true,
      });
      const page = await phone.newPage();
      await page.goto(signInUrl(origin, TOKEN));
      const answer = await page.goto(`${origin}${path()}`);
      expect(answer?.status()).toBe(200);
      await page.waitForSelector(selector);
      const width = Number(await page.evaluate('document.scrollingElement.scrollWidth'));
      console.log(`${name} page at 390 px: scrollWidth ${width}`);
      await page.screenshot({ path: `${SCREENSHOTS}/${name}-390.png`, fullPage: true });
      expect(width, `${name}: document.scrollingElement.scrollWidth`).toBeLessThanOrEqual(390);
      await phone.close();
    },
  );

  it('shows the parts of an email as accessible tabs that keep the mail frame sandboxed', async () => {
    const { page, errors } = await watchedPage();
    await page.goto(`${origin}/dashboard/emails/${plainEmailId}`);
    const tabs = page.getByRole('tablist').getByRole('tab');
    expect(await tabs.allInnerTexts()).toEqual([
      'HTML',
      'Text',
      'Attachments (0)',
      'Headers',
      'Source',
    ]);
    const panel = (name: string) => page.locator(`#panel-${name}`);
    expect(await page.getByRole('tab', { selected: true }).innerText()).toBe('HTML');
    expect(await panel('html').isVisible()).toBe(true);
    expect(await panel('text').isVisible()).toBe(false);
    // A click switches in place (no navigation), and the address names the tab.
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    await page.getByRole('tab', { name: 'Text' }).click();
    expect(await page.getByRole('tab', { selected: true }).innerText()).toBe('Text');
    expect(await panel('text').innerText()).toContain('jammed again');
    expect(await panel('html').isVisible()).toBe(false);
    expect(page.url()).toMatch(/\?tab=text$/);
    // The keyboard: arrow keys move the selection and the focus, End goes to the last tab.
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { selected: true }).innerText()).toBe('Attachments (0)');
    await page.keyboard.press('End');
    const source = page.getByRole('tab', { selected: true });
    expect(await source.innerText()).toBe('Source');
    expect(await page.evaluate('document.activeElement.id')).toBe('tab-source');
    expect(await panel('source').innerText()).toContain('Printer jammed again');
    expect(await page.getByRole('tabpanel').count()).toBe(1); // hidden panels are not exposed
    await page.keyboard.press('ArrowRight'); // wraps to the first
    expect(await page.getByRole('tab', { selected: true }).innerText()).toBe('HTML');
    const frame = page.locator('iframe.mail');
    expect(await frame.getAttribute('sandbox')).toBe('allow-popups allow-popups-to-escape-sandbox');
    await expect
      .poll(() => page.frameLocator('iframe.mail').locator('body').innerText())
      .toContain('jammed again');
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    expect(errors).toEqual([]);
    await page.close();
    // Without script, each tab is a link to the page showing that part.
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const plain = await noScript.newPage();
    await plain.goto(signInUrl(origin, TOKEN));
    await plain.goto(`${origin}/dashboard/emails/${plainEmailId}`);
    await Promise.all([
      plain.waitForURL(/\?tab=headers$/),
      plain.getByRole('tab', { name: 'Headers' }).click(),
    ]);
    expect(await plain.getByRole('tab', { selected: true }).innerText()).toBe('Headers');
    expect(await plain.locator('#panel-headers').innerText()).toContain('Subject');
    expect(await plain.locator('#panel-html').isVisible()).toBe(false);
    await noScript.close();
  });

  it('marks an email read and unread, stars it, moves it and deletes it from its page', async () => {
    const email = services.inbound.injectJson({
      mailbox: 'support@acme.test',
      from: 'Kim Client <kim@customer.example>',
      subject: 'Controls on the email page',
      text: 'Please file this.',
    });
    const stored = () => services.deps.store.emails.get(email.id);
    const { page, errors } = await watchedPage();
    await page.goto(`${origin}/dashboard/emails/${email.id}`);
    const click = async (selector: string) => {
      await Promise.all([page.waitForURL(/notice=/), page.click(selector)]);
      await page.waitForSelector('.notice[role="status"]');
    };
    expect(stored()).toMatchObject({ read: false, starred: false, folder: 'inbox' });
    await click('button:has-text("Mark read")');
    expect(await page.locator('.notice[role="status"]').innerText()).toBe('Marked read.');
    expect(stored()?.read).toBe(true);
    await click('button:has-text("Mark unread")');
    expect(stored()?.read).toBe(false);
    await click('button:has-text("Star")');
    expect(stored()?.starred).toBe(true);
    expect(await page.locator('dl.meta').innerText()).toContain('unread, starred');
    await click('button:has-text("Unstar")');
    expect(stored()?.starred).toBe(false);
    await page.selectOption('#move-folder', 'archive');
    await click('#move');
    expect(await page.locator('.notice[role="status"]').innerText()).toBe('Moved to archive.');
    expect(stored()?.folder).toBe('archive');
    expect(await page.locator('#move-folder').inputValue()).toBe('archive');
    // The same email through the API: the dashboard's changes are the API's.
    const api = await fetch(`${origin}/openapi/v1/emails/${email.id}`, {
      headers: { authorization: `Bearer ${DEMO_KEY}` },
    });
    expect(await api.json()).toMatchObject({ folder: 'archive', read: false, starred: false });
    // Delete asks once more (a disclosure, no dialog), then returns to the mailbox.
    expect(await page.locator('#delete').isVisible()).toBe(false);
    await page.click('details.delete summary');
    await Promise.all([page.waitForURL(/\/dashboard\/mailboxes\/support/), page.click('#delete')]);
    expect(await page.locator('.notice[role="status"]').innerText()).toBe(
      'Deleted "Controls on the email page".',
    );
    expect(stored()).toBeUndefined();
    const gone = await fetch(`${origin}/openapi/v1/emails/${email.id}`, {
      headers: { authorization: `Bearer ${DEMO_KEY}` },
    });
    expect(gone.status).toBe(404);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('narrows a mailbox with a search, and opens an email to its body', async () => {
    const { page, errors } = await watchedPage();
    await page.goto(`${origin}/dashboard/mailboxes/billing%40acme.test`);
    const before = await page.locator('tr[data-email-id]').count();
    await page.fill('input[name="q"]', 'invoice');
    await Promise.all([page.waitForURL(/q=invoice/), page.click('form.filters button')]);
    const rows = page.locator('tr[data-email-id]');
    const after = await rows.count();
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(before);
    const subject = (await rows.first().locator('td a').innerText()).trim();
    await Promise.all([
      page.waitForURL(/\/dashboard\/emails\//),
      rows.first().locator('td a').click(),
    ]);
    await expect.poll(() => page.locator('h1').innerText()).toBe(subject);
    const text = await page.locator('pre.text-body, iframe.mail').count();
    expect(text).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('narrows the outbox with a search', async () => {
    const { page, errors } = await watchedPage();
    await page.goto(`${origin}/dashboard/outbox`);
    expect(await page.locator('tr[data-outbox-id]').count()).toBe(2);
    await page.fill('input[name="q"]', 'supplier remittance');
    await Promise.all([page.waitForURL(/q=supplier/), page.click('form.filters button')]);
    const rows = page.locator('tr[data-outbox-id]');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain('Remittance for invoice 4471');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows new mail in an open mailbox without reloading (Server-Sent Events)', async () => {
    const { page, errors } = await watchedPage();
    await page.goto(`${origin}/dashboard/mailboxes/maria.lopez%40acme.test`);
    await page.waitForSelector('body[data-live-ready="true"]');
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    const answer = await fetch(`${origin}/_mailtwin/v1/inbound`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        mailbox: 'maria.lopez@acme.test',
        from: 'ops@vendor.example',
        to: ['maria.lopez@acme.test'],
        subject: 'Arrived while you watched',
        text: 'Live.',
      }),
    });
    expect(answer.status).toBe(201);
    await page.waitForSelector('tr[data-email-id] >> text=Arrived while you watched');
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lets a hidden tab drop its event stream, and catches up when it is shown again', async () => {
    const { page, errors } = await watchedPage();
    await page.goto(`${origin}/dashboard/mailboxes/jin.park%40northwind.test`);
    await page.waitForSelector('body[data-live-ready="true"]');
    const setHidden = (hidden: boolean) =>
      page.evaluate(
        `Object.defineProperty(document, 'hidden', { value: ${hidden}, configurable: true });
         document.dispatchEvent(new Event('visibilitychange'));`,
      );
    await setHidden(true);
    await page.waitForSelector('body[data-live-ready="false"]');
    services.inbound.injectJson({
      mailbox: 'jin.park@northwind.test',
      from: 'night@vendor.example',
      subject: 'Arrived while hidden',
      text: 'x',
    });
    await setHidden(false);
    await page.waitForSelector('tr[data-email-id] >> text=Arrived while hidden');
    await page.waitForSelector('body[data-live-ready="true"]');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('Send test makes a delivery appear live, with its signed request and the receiver answer', async () => {
    const { page, errors } = await watchedPage();
    await page.goto(`${origin}/dashboard/webhooks/wh_demo_sink`);
    await page.waitForSelector('body[data-live-ready="true"]');
    const before = await page.locator('.delivery').count();
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    await page.click('button:has-text("Send test")');
    await page.waitForSelector('.delivery:has-text("webhook.test")');
    expect(await page.locator('.delivery').count()).toBe(before + 1);
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    const delivery = page.locator('.delivery:has-text("webhook.test")').first();
    await delivery.locator('summary').first().click();
    await expect
      .poll(() => delivery.locator('pre.request').innerText())
      .toMatch(/X-Service-Signature: sha256=[0-9a-f]{64}/);
    expect(await delivery.locator('pre.response').innerText()).toMatch(/^HTTP 200/);
    await page.screenshot({ path: `${SCREENSHOTS}/webhook-after-send-test.png`, fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('creates an API key whose secret, shown once, authenticates on the API', async () => {
    const { page, errors } = await watchedPage();
    await page.goto(`${origin}/dashboard/keys`);
    await page.fill('#create-key input[name="name"]', 'Browser-made key');
    await Promise.all([page.waitForSelector('#new-secret'), page.click('#create-key button')]);
    const secret = (await page.locator('#new-secret').innerText()).trim();
    const api = await fetch(`${origin}/openapi/v1/mailboxes`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(api.status).toBe(200);
    await page.goto(`${origin}/dashboard/keys`);
    expect(await page.locator('tr[data-key-id]:has-text("Browser-made key")').count()).toBe(1);
    expect(await page.content()).not.toContain(secret);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('renders mail carrying script and event handlers without running any of it', async () => {
    const email = services.inbound.injectJson({
      mailbox: 'hello@acme.test',
      from: 'mallory@attacker.example',
      to: ['hello@acme.test'],
      subject: 'Hostile HTML',
      html: HOSTILE_HTML,
    });
    const { page, errors } = await watchedPage();
    const messages: string[] = [];
    await page.exposeFunction('recordMessage', (data: string) => messages.push(data));
    // In the dashboard's page, before any of its scripts: note any message a frame posts.
    await page.addInitScript(
      "window.addEventListener('message', (event) => window.recordMessage(String(event.data)))",
    );
    await page.goto(`${origin}/dashboard/emails/${email.id}`);
    const title = await page.title();
    const frame = page.frameLocator('iframe.mail');
    await expect
      .poll(() => frame.locator('#visible').innerText())
      .toBe('Quarterly numbers attached.');
    // Clicking what a reader might click: neither a javascript: link nor a form may run.
    await frame.locator('#jslink').click({ noWaitAfter: true });
    await frame.locator('#jsform').click({ noWaitAfter: true });
    const ran = await frame.locator('body').getAttribute('data-ran');
    expect(ran, 'a script in the mail changed its own document').toBeNull();
    expect(await page.title(), 'a script in the mail reached the dashboard').toBe(title);
    expect(messages, 'a script in the mail posted to the dashboard').toEqual([]);
    expect(
      errors.filter((e) => e.startsWith('dialog')),
      'dialogs opened',
    ).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}/email-hostile.png`, fullPage: true });
    await page.close();
  });
});
