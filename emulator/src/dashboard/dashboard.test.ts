import { describe, expect, it } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import type { Services } from '../deps.ts';
import { DEFAULT_FIXTURES } from '../cli-options.ts';
import { loadFixtureFile } from '../fixtures/load-fixture.ts';
import { SESSION_COOKIE } from './session.ts';

const TOKEN = 'mt_dashboard-test+token/=';

/**
 * An emulator with the demo data, its app, and a signed-in cookie header; `beforeFirstVisit`
 * runs once the app exists, before any request to it.
 */
async function signedIn(beforeFirstVisit: (services: Services) => Promise<void> = async () => {}) {
  const deps = defaultDeps({ controlToken: TOKEN });
  const services = createServices(deps);
  await loadFixtureFile(services, DEFAULT_FIXTURES);
  const app = createApp(deps, services);
  await beforeFirstVisit(services);
  const answer = await app.request(`/dashboard/sign-in?token=${encodeURIComponent(TOKEN)}`);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const get = (path: string) => app.request(path, { headers: { cookie } });
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  return { app, services, cookie, get, post };
}

describe('the dashboard', () => {
  it('answers 401 on every page, the event stream and every action without the session cookie', async () => {
    const { app } = await signedIn();
    for (const path of [
      '/',
      '/dashboard/keys',
      '/dashboard/events',
      '/dashboard/outbox',
      '/dashboard/nope',
    ]) {
      const answer = await app.request(path);
      expect(answer.status, path).toBe(401);
      expect(await answer.text(), path).toContain('sign-in URL');
    }
    const post = await app.request('/dashboard/keys', {
      method: 'POST',
      body: new URLSearchParams({ name: 'x' }),
    });
    expect(post.status).toBe(401);
    const forged = await app.request('/', { headers: { cookie: `${SESSION_COOKIE}=${TOKEN}` } });
    expect(forged.status, 'the control token itself is not a session').toBe(401);
  });

  it('refuses a sign-in with a wrong or missing token with 401 and no cookie', async () => {
    const { app } = await signedIn();
    for (const path of [
      '/dashboard/sign-in?token=wrong',
      '/dashboard/sign-in',
      `/dashboard/sign-in?token=${TOKEN}x`,
    ]) {
      const answer = await app.request(path);
      expect(answer.status, path).toBe(401);
      expect(answer.headers.get('set-cookie'), path).toBeNull();
    }
  });

  it('signs in with the control token: an HttpOnly, SameSite=Strict cookie for the whole origin, then / without the token', async () => {
    const { app } = await signedIn();
    const answer = await app.request(`/dashboard/sign-in?token=${encodeURIComponent(TOKEN)}`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
    const cookie = answer.headers.get('set-cookie') ?? '';
    const attributes = cookie.split(';').map((part) => part.trim());
    expect(attributes[0]).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}$`));
    expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
    expect(cookie, 'the cookie does not carry the token').not.toContain('dashboard-test');
  });

  it('serves its pages with a strict CSP and never framed', async () => {
    const { get } = await signedIn();
    const answer = await get('/');
    expect(answer.status).toBe(200);
    const csp = answer.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await answer.text()).toContain('Acme Corp');
  });

  it('leaves the rest of the origin alone: unknown paths keep the JSON 404, the API spec has no dashboard path', async () => {
    const { app } = await signedIn();
    const answer = await app.request('/emails');
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { code: string }).code).toBe('not_found');
    const spec = await (await app.request('/openapi/openapi.json')).text();
    expect(spec).not.toContain('/dashboard');
  });

  it('lists a mailbox newest first and narrows it with the API filters', async () => {
    const { get } = await signedIn();
    const all = await (await get('/dashboard/mailboxes/billing%40acme.test')).text();
    const some = await (
      await get('/dashboard/mailboxes/billing%40acme.test?q=invoice&read=')
    ).text();
    const rows = (page: string) => [...page.matchAll(/data-email-id="([^"]+)"/g)].length;
    const times = [...all.matchAll(/<time datetime="([^"]+)"/g)].map((m) => m[1] as string);
    expect(rows(some)).toBeGreaterThan(0);
    expect(rows(some)).toBeLessThan(rows(all));
    expect(times).toEqual([...times].sort().reverse());
  });

  it('shows a refused filter as the API words it, with 400', async () => {
    const { get } = await signedIn();
    const answer = await get(
      '/dashboard/mailboxes/billing%40acme.test?dateFrom=2026-11-02&dateTo=2026-11-01',
    );
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('dateTo must not be earlier than dateFrom.');
  });

  it('serves mail HTML in a sandbox that allows no script, remote content only when asked', async () => {
    const { get, services } = await signedIn();
    const email = services.inbound.injectJson({
      mailbox: 'hello@acme.test',
      from: 'x@example.com',
      to: ['hello@acme.test'],
      subject: 'Scripted',
      html: '<p onclick="alert(1)">Hi</p><script>alert(1)</script><img src="https://tracker.example/p.gif">',
    });
    const page = await (await get(`/dashboard/emails/${email.id}`)).text();
    expect(page).toContain('sandbox="allow-popups allow-popups-to-escape-sandbox"');
    expect(page).toContain('Load remote content');
    const frame = await get(`/dashboard/emails/${email.id}/body.html`);
    const csp = frame.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/^sandbox allow-popups allow-popups-to-escape-sandbox;/);
    expect(csp).toContain("script-src 'none'");
    expect(csp).toContain('img-src data:;');
    const remote = await get(`/dashboard/emails/${email.id}/body.html?remote=1`);
    expect(remote.headers.get('content-security-policy')).toContain('img-src data: http: https:');
  });

  it('creates a key through the control plane, shows its secret once, and the secret authenticates on the API', async () => {
    const { post, get, app } = await signedIn();
    const answer = await post('/dashboard/keys', {
      ownerId: 'own_acme',
      name: 'From the dashboard',
      scope: 'follow-owner',
    });
    expect(answer.status).toBe(201);
    const secret = /id="new-secret">([^<]+)</.exec(await answer.text())?.[1] ?? '';
    const api = await app.request('/openapi/v1/mailboxes', {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(api.status).toBe(200);
    const keys = await (await get('/dashboard/keys')).text();
    expect(keys).toContain('From the dashboard');
    expect(keys).not.toContain(secret);
  });

  it('changes an email from its page only for a signed-in, same-origin post with something to change', async () => {
    const { app, post, services } = await signedIn();
    const email = services.inbound.injectJson({
      mailbox: 'hello@acme.test',
      from: 'a@customer.example',
      subject: 'Controls',
      text: 'x',
    });
    const stored = () => services.deps.store.emails.get(email.id);
    const base = `/dashboard/emails/${email.id}`;
    const anonymous = await app.request(`${base}/delete`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    const crossSite = await post(`${base}/delete`, {}, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const nothing = await post(`${base}/update`, { folder: 'later', read: 'yes' });
    expect(nothing.status).toBe(303);
    expect(nothing.headers.get('location')).toBe(`${base}?error=Nothing+to+change.`);
    expect(stored()).toMatchObject({ folder: 'inbox', read: false, starred: false });
    const changed = await post(`${base}/update`, { folder: 'spam', read: 'true', starred: 'true' });
    expect(changed.headers.get('location')).toBe(
      `${base}?notice=Marked+read.+Starred.+Moved+to+spam.`,
    );
    expect(stored()).toMatchObject({ folder: 'spam', read: true, starred: true });
    const deleted = await post(`${base}/delete`, {});
    expect(deleted.headers.get('location')).toMatch(
      /^\/dashboard\/mailboxes\/hello%40acme\.test\?notice=Deleted/,
    );
    expect(stored()).toBeUndefined();
    const again = await post(`${base}/delete`, {});
    expect(again.status).toBe(404);
  });

  it('reports a refused action with the control plane message, and refuses a post from another origin', async () => {
    const { post } = await signedIn();
    const refused = await post('/dashboard/clock', { set: '2001-01-01T00:00:00Z' });
    expect(refused.status).toBe(303);
    expect(
      new URL(refused.headers.get('location') ?? '', 'http://x').searchParams.get('error'),
    ).toContain('the clock only moves forward');
    const crossSite = await post('/dashboard/faults/clear', {}, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const outside = await post('/dashboard/faults/clear', { back: '//evil.example/x' });
    expect(outside.headers.get('location')).toMatch(/^\/dashboard\/clock\?/);
  });

  it('streams a change event naming the mailbox when mail arrives (SSE)', async () => {
    const { get, services } = await signedIn();
    const answer = await get('/dashboard/events');
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    let received = '';
    const readUntil = async (text: string) => {
      while (!received.includes(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${text}`);
        received += new TextDecoder().decode(value);
      }
    };
    await readUntil('event: ready');
    services.inbound.injectJson({
      mailbox: 'jin.park@northwind.test',
      from: 'a@b.example',
      to: ['jin.park@northwind.test'],
      subject: 'Live',
      text: 'x',
    });
    await readUntil('event: change');
    await readUntil('\n\n');
    expect(received).toContain('"topics":["mailbox:jin.park@northwind.test"]');
    await reader.cancel();
  });

  it('re-enables a paused webhook, suppresses and releases an address, moves the clock and arms faults', async () => {
    const { post, get, services } = await signedIn();
    services.deps.store.webhooks.setStatus('wh_demo_sink', 'paused', 15);
    const paused = await (await get('/dashboard/webhooks')).text();
    expect(paused).toContain('Re-enable');
    await post('/dashboard/webhooks/wh_demo_sink/enable', { back: '/dashboard/webhooks' });
    expect(services.webhooks.get('wh_demo_sink').status).toBe('active');

    await post('/dashboard/suppressions', { address: 'gone@example.com', reason: 'bounced' });
    expect(services.directory.suppressions().map((s) => s.address)).toContain('gone@example.com');
    await post('/dashboard/suppressions/gone%40example.com/delete', {});
    expect(services.directory.suppressions().map((s) => s.address)).not.toContain(
      'gone@example.com',
    );

    const before = services.deps.clock.now().getTime();
    await post('/dashboard/clock', { amount: '2', unit: '3600000' });
    expect(services.deps.clock.now().getTime() - before).toBeGreaterThanOrEqual(2 * 3_600_000);

    await post('/dashboard/faults', {
      operations: 'send',
      mode: 'error',
      status: '502',
      count: '2',
    });
    expect(services.faults.list()).toEqual([
      expect.objectContaining({ operations: ['send'], mode: 'error', status: 502, remaining: 2 }),
    ]);
    await post('/dashboard/faults/clear', {});
    expect(services.faults.list()).toEqual([]);
  });

  it('lists the armed chaos rules in order with their seed and how often each matched and fired, and clears them', async () => {
    const { get, post, services } = await signedIn();
    expect(await (await get('/dashboard/clock')).text()).toContain('No chaos rule armed.');
    const { rules } = services.chaos.arm({
      seed: 77,
      rules: [
        { surface: 'http', operation: 'sendEmail', probability: 0, error: { status: 503 } },
        { surface: 'smtp', stage: 'rcpt', reply: { code: 451, text: '4.7.1 Greylisted' } },
        { surface: 'webhook', latencyMs: 250, delivery: { outcome: 'timeout' } },
      ],
    });
    for (let i = 0; i < 3; i += 1) services.chaos.decide({ surface: 'smtp', stage: 'rcpt' });
    services.chaos.decide({ surface: 'smtp', stage: 'mail' }); // matches no rule
    const page = await (await get('/dashboard/clock')).text();
    expect(page).toContain('Chaos rules');
    expect(page).toContain('<span id="chaos-seed">77</span>');
    const rows = [...page.matchAll(/<tr>\s*<td>(chr_[^<]+)<\/td>([\s\S]*?)<\/tr>/g)].map((m) =>
      [m[1], ...[...(m[2] ?? '').matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((c) => c[1])].join(' | '),
    );
    expect(rows).toEqual([
      `${rules[0]?.id} | http sendEmail | 0 | 0 ms | 503 service_unavailable | 0 | 0`,
      `${rules[1]?.id} | smtp rcpt | 1 | 0 ms | 451 4.7.1 Greylisted | 3 | 3`,
      `${rules[2]?.id} | webhook every webhook | 1 | 250 ms | timeout | 0 | 0`,
    ]);
    expect(page).toContain('Clear chaos rules');
    await post('/dashboard/chaos/clear', { back: '/dashboard/clock' });
    expect(services.chaos.list()).toEqual({ seed: 77, rules: [] });
  });

  it('downloads the exact bytes of mail that arrived raw, and of a sent copy the outbox kept', async () => {
    const { get, app, services } = await signedIn();
    const raw = 'From: a@b.example\r\nTo: hello@acme.test\r\nSubject: Raw one\r\n\r\nBody\r\n';
    const email = await services.inbound.injectRaw(new TextEncoder().encode(raw), {
      mailbox: 'hello@acme.test',
    });
    const eml = await get(`/dashboard/emails/${email.id}/eml`);
    expect(eml.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    expect(await eml.text()).toBe(raw);
    expect(await (await get(`/dashboard/emails/${email.id}`)).text()).toContain(
      'The message exactly as it arrived.',
    );

    const sent = await app.request('/openapi/v1/emails/send', {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        from: 'hello@acme.test',
        to: 'x@far.example',
        subject: 'Out',
        text: 'Hi',
      }),
    });
    const { id } = (await sent.json()) as { id: string };
    const kept = services.deps.store.outbox.list().find((e) => e.sentEmailId === id);
    const bytes = services.deps.store.outbox.get(kept?.id ?? '')?.raw.toString('utf8');
    expect(await (await get(`/dashboard/emails/${id}/eml`)).text()).toBe(bytes);
  });

  it('pages a mailbox 25 at a time, newest first, with an Older link carrying the cursor', async () => {
    const { get, services } = await signedIn();
    for (let i = 0; i < 30; i += 1) {
      services.inbound.injectJson({
        mailbox: 'team@acme-labs.test',
        from: 'bot@ci.example',
        subject: `Build ${i}`,
        text: 'ok',
        receivedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      });
    }
    const first = await (
      await get('/dashboard/mailboxes/team%40acme-labs.test?from=ci.example')
    ).text();
    const subjects = (page: string) => [...page.matchAll(/>(Build \d+)</g)].map((m) => m[1]);
    expect(subjects(first)).toHaveLength(25);
    expect(subjects(first)[0]).toBe('Build 29');
    const older = /href="([^"]+)" rel="next"/.exec(first)?.[1]?.replaceAll('&amp;', '&') ?? '';
    expect(older).toContain('cursor=');
    const second = await (await get(older)).text();
    expect(subjects(second)).toEqual(['Build 4', 'Build 3', 'Build 2', 'Build 1', 'Build 0']);
    expect(second).not.toContain('rel="next"');
  });

  it('serves an attachment as a download only, and a disabled key stops working on the API', async () => {
    const { get, post, app, services } = await signedIn();
    const email = services.inbound.injectJson({
      mailbox: 'hello@acme.test',
      from: 'a@b.example',
      subject: 'With a file',
      text: 'see file',
      attachments: [
        { name: 'note.html', contentType: 'text/html', contentBase64: btoa('<script>x</script>') },
      ],
    });
    const id = email.attachments[0]?.id ?? '';
    const file = await get(`/dashboard/emails/${email.id}/attachments/${id}`);
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="note.html"/);
    expect(file.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(await file.text()).toBe('<script>x</script>');

    const key = 'sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU';
    const api = () =>
      app.request('/openapi/v1/mailboxes', { headers: { authorization: `Bearer ${key}` } });
    expect((await api()).status).toBe(200);
    await post('/dashboard/keys/key_acme_demo/disable', {});
    expect((await api()).status).toBe(401);
    await post('/dashboard/keys/key_acme_demo/enable', {});
    expect((await api()).status).toBe(200);
  });

  it('shows a failed attempt with its error and the next retry of a pending delivery', async () => {
    const { get, services } = await signedIn();
    // Loopback targets are refused here (no --allow-loopback-webhooks): the demo sink fails.
    services.inbound.injectJson({ mailbox: 'hello@acme.test', from: 'a@b.example', subject: 'x' });
    await services.dispatcher.runDue();
    const page = await (await get('/dashboard/webhooks/wh_demo_sink')).text();
    expect(page).toContain('<span class="badge pending">pending</span>');
    expect(page).toMatch(/· next retry <time datetime="[^"]+"/);
    expect(page).toContain('<span class="badge bad">no answer</span>');
    expect(page).toContain('<h4>Signed request</h4>');
  });

  it('shows the signed request of a delivery made before the dashboard was first opened', async () => {
    // The dashboard's code loads on the first visit; what it shows of deliveries must not.
    const { get } = await signedIn(async (services) => {
      services.inbound.injectJson({
        mailbox: 'hello@acme.test',
        from: 'a@b.example',
        subject: 'x',
      });
      await services.dispatcher.runDue();
    });
    const page = await (await get('/dashboard/webhooks/wh_demo_sink')).text();
    expect(page).toContain('<h4>Signed request</h4>');
    expect(page).toContain('<span class="badge bad">no answer</span>');
  });

  it('ends its event streams when the emulator stops, so an open tab does not hold the stop', async () => {
    const { get, services } = await signedIn();
    const answer = await get('/dashboard/events');
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: ready');
    services.deps.events.publish({ type: 'emulator.stopping' });
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  });
});
