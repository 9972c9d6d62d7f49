import type { Context } from 'hono';

/**
 * The policy of a mail's HTML, served on its own URL for a sandboxed <iframe>: `sandbox` without
 * allow-scripts (so no script, no event handler, no form, and an opaque origin even if opened
 * directly), nothing fetched from anywhere but inline styles and data: images, unless the reader
 * asked for remote content, which then allows images and styles over http(s), still no script.
 */
export function mailCsp(remote: boolean): string {
  const far = remote ? ' http: https:' : '';
  return [
    'sandbox allow-popups allow-popups-to-escape-sandbox',
    "default-src 'none'",
    "script-src 'none'",
    `style-src 'unsafe-inline'${far}`,
    `img-src data:${far}`,
    `font-src data:${far}`,
    "frame-ancestors 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** Whether the HTML refers to anything over http(s) that the default policy blocks. */
export function hasRemoteContent(html: string): boolean {
  return /(?:src|href|background|srcset)\s*=\s*["']?\s*(?:https?:)?\/\/|url\(\s*["']?\s*(?:https?:)?\/\//i.test(
    html.replace(/<a\b[^>]*>/gi, ''),
  );
}

/** The mail's HTML as its own document, under `mailCsp`. */
export function mailFrame(c: Context, body: string, remote: boolean) {
  // Links open outside the frame; without it a click would load the site inside the dashboard.
  const document = `<!doctype html><meta charset="utf-8"><base target="_blank">${body}`;
  return c.body(document, 200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': mailCsp(remote),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
}
