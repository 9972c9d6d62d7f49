import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import type { Services } from '../deps.ts';
import { toApiError } from '../errors.ts';
import { registerActions } from './actions.ts';
import { assetRoutes } from './assets.ts';
import { DashboardControl } from './dashboard-control.ts';
import type { ExchangeLog } from './exchange-log.ts';
import { page } from './layout.ts';
import { liveEvents } from './live.ts';
import { clockPage } from './pages/clock.ts';
import { emailAttachment, emailBody, emailEml, emailPage } from './pages/email.ts';
import { keysPage } from './pages/keys.ts';
import { mailboxPage } from './pages/mailbox.ts';
import { outboxEml, outboxEntryPage, outboxPage } from './pages/outbox.ts';
import { ownersPage } from './pages/owners.ts';
import { suppressionsPage } from './pages/suppressions.ts';
import { webhookPage, webhooksPage } from './pages/webhooks.ts';
import { requireSession, SIGN_IN_PATH, signIn } from './session.ts';

/**
 * The web dashboard (issue 17 item 1): `/` and everything under `/dashboard/`, server-rendered
 * with hono/html, live through Server-Sent Events. It holds the control plane's authority
 * through a session cookie the banner's sign-in URL sets; reads go to the services and the
 * API's own list parser, writes through the control plane (dashboard-control.ts). Nothing else
 * of the origin is touched: unknown paths outside `/dashboard/` keep the API's JSON 404.
 */
export function dashboardRoutes(services: Services, exchanges: ExchangeLog): Hono {
  const { controlToken } = services.deps;
  const app = new Hono();
  const session = requireSession(controlToken);
  const control = new DashboardControl(services);
  const { events } = services.deps;

  app.get(SIGN_IN_PATH, signIn(controlToken));
  app.get('/', session, ownersPage(services));
  app.use('/dashboard/*', session);
  app.route('/dashboard/assets', assetRoutes());
  app.get('/dashboard/events', liveEvents(events));
  app.get('/dashboard/mailboxes/:address', mailboxPage(services));
  app.get('/dashboard/emails/:id', emailPage(services));
  app.get('/dashboard/emails/:id/body.html', emailBody(services));
  app.get('/dashboard/emails/:id/eml', emailEml(services));
  app.get('/dashboard/emails/:id/attachments/:attachmentId', emailAttachment(services));
  app.get('/dashboard/outbox', outboxPage(services));
  app.get('/dashboard/outbox/:id', outboxEntryPage(services));
  app.get('/dashboard/outbox/:id/eml', outboxEml(services));
  app.get('/dashboard/webhooks', (c) => webhooksPage(services)(c));
  app.get('/dashboard/webhooks/:id', webhookPage(services, exchanges));
  app.get('/dashboard/keys', (c) => keysPage(services, c));
  app.get('/dashboard/suppressions', suppressionsPage(services));
  app.get('/dashboard/clock', clockPage(services));
  registerActions(app, services, control);
  app.all('/dashboard/*', (c) => problem(c, 'No such page.', 404));

  app.onError((error, c) => {
    const { apiError, unexpected } = toApiError(error);
    if (unexpected) services.deps.logError(error);
    return problem(c, apiError.message, unexpected ? 500 : apiError.status === 404 ? 404 : 400);
  });
  return app;
}

/** A missing thing (an unknown email, webhook…) or a refused one, as a page, not as JSON. */
function problem(c: Context, message: string, status: 400 | 404 | 500) {
  const title =
    status === 404 ? 'Not found' : status === 500 ? 'Something went wrong' : 'Cannot show this';
  const body = html`<p><a href="/">Back to the dashboard</a></p>`;
  return page(c, { title, section: '', error: message, body }, status);
}
