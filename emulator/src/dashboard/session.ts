import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { SECURITY_HEADERS } from './layout.ts';

export const SESSION_COOKIE = 'mailtwin_dashboard';
export const SIGN_IN_PATH = '/dashboard/sign-in';

/**
 * The cookie's value: an HMAC of the control token, not the token itself, so a cookie read
 * off a disk or a proxy log gives the dashboard but not the control plane's Bearer authority.
 * It changes with the token, so a new `--control-token` signs everyone out.
 */
export function sessionValue(controlToken: string): string {
  return createHmac('sha256', controlToken)
    .update('mailtwin dashboard session')
    .digest('base64url');
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The banner's sign-in URL: it carries the control token once; the cookie replaces it. */
export function signInUrl(origin: string, controlToken: string): string {
  return `${origin}${SIGN_IN_PATH}?token=${encodeURIComponent(controlToken)}`;
}

function refuse(c: Context, why: string) {
  return c.html(
    html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>Sign in · mailtwin</title>
        </head>
        <body>
          <h1>401: sign in first</h1>
          <p>${why}</p>
          <p>
            Open the sign-in URL that <code>mailtwin serve</code> printed in its banner (the line
            <code>Dashboard</code>); it carries the control token once and sets a cookie.
          </p>
        </body>
      </html>`,
    401,
    SECURITY_HEADERS,
  );
}

/**
 * `GET /dashboard/sign-in?token=<control token>`: a right token sets the session cookie
 * (HttpOnly, SameSite=Strict, the whole origin) and redirects to `/`, so the token leaves the
 * address bar at once; a wrong or missing one is 401.
 */
export function signIn(controlToken: string) {
  const expected = sessionValue(controlToken);
  return (c: Context) => {
    const presented = c.req.query('token');
    if (presented === undefined || !same(sessionValue(presented), expected)) {
      return refuse(c, 'This sign-in link does not carry the control token of this emulator.');
    }
    setCookie(c, SESSION_COOKIE, expected, {
      path: '/',
      httpOnly: true,
      sameSite: 'Strict',
      secure: new URL(c.req.url).protocol === 'https:',
    });
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    return c.redirect('/', 303);
  };
}

/**
 * Every dashboard page and action needs the session cookie (401 otherwise). A state-changing
 * request must also come from this origin: SameSite=Strict already keeps the cookie off other
 * sites' requests, and the Origin check is a second lock that costs nothing.
 */
export function requireSession(controlToken: string): MiddlewareHandler {
  const expected = sessionValue(controlToken);
  return async (c, next) => {
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie === undefined || !same(cookie, expected)) {
      return refuse(c, cookie === undefined ? 'No session.' : 'This session is not valid.');
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const origin = c.req.header('origin');
      if (origin !== undefined && origin !== new URL(c.req.url).origin) {
        return c.text('Cross-origin form posts are refused.', 403, SECURITY_HEADERS);
      }
    }
    await next();
  };
}
