import type { Context } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/** What a template returns: escaped HTML, possibly still resolving. */
export type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * The dashboard's own pages: only its stylesheet and script, nothing from elsewhere, never framed.
 * Mail HTML is served apart with a stricter policy (email-frame.ts).
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const SECURITY_HEADERS = {
  'Content-Security-Policy': PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: with it Chromium sends `Origin: null` on form posts, which session.ts refuses.
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

const NAV = [
  ['/', 'Owners & mailboxes'],
  ['/dashboard/outbox', 'Outbox'],
  ['/dashboard/webhooks', 'Webhooks'],
  ['/dashboard/keys', 'API keys'],
  ['/dashboard/suppressions', 'Suppressions'],
  ['/dashboard/clock', 'Clock & faults'],
] as const;

export interface PageInput {
  title: string;
  /** Which nav entry is current. */
  section: string;
  /**
   * Topics of live events (live.ts) that make this page refresh its `#live` region, e.g.
   * `mailbox:hello@acme.test`; none for a page that never changes by itself.
   */
  live?: string[];
  /** A message from the last action (`?notice=` or `?error=`). */
  notice?: string | undefined;
  error?: string | undefined;
  body: Markup;
}

/** The page shell: nav, notices, and the `#live` region that live updates replace. */
export function page(c: Context, input: PageInput, status: 200 | 201 | 400 | 404 | 500 = 200) {
  const nav = NAV.map(
    ([href, label]) =>
      html`<a href="${href}" class="${href === input.section ? 'current' : ''}">${label}</a>`,
  );
  const notice = input.notice ?? c.req.query('notice');
  const error = input.error ?? c.req.query('error');
  return c.html(
    html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>${input.title} · mailtwin</title>
          <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
          <script src="/dashboard/assets/live.js" defer></script>
        </head>
        <body data-live="${(input.live ?? []).join(' ')}">
          <header>
            <a class="brand" href="/">mailtwin</a>
            <nav>${nav}</nav>
          </header>
          <main>
            <h1>${input.title}</h1>
            <p id="flash" class="error" role="alert" ${error ? '' : 'hidden'}>${error ?? ''}</p>
            ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
            <div id="live">${input.body}</div>
          </main>
        </body>
      </html>`,
    status,
    SECURITY_HEADERS,
  );
}
