import type { Context, Hono } from 'hono';
import type { Services } from '../deps.ts';
import { FOLDERS, type Folder } from '../domain/types.ts';
import type { ControlAnswer, DashboardControl } from './dashboard-control.ts';
import { afterAction, backTo, field, fieldList, formFields, seg } from './format.ts';
import { findEmail } from './pages/email.ts';
import { keysPage } from './pages/keys.ts';
import { webhooksPage } from './pages/webhooks.ts';

type Fields = Record<string, string | string[]>;

/**
 * Runs one control-plane call for a form and answers the way the form was sent: live.js's
 * fetch (`X-Dashboard-Async`) gets 204 or the error's message as text; a plain form post is
 * redirected back to its page with the outcome in `notice` or `error`.
 */
function act(
  fallback: string,
  run: (fields: Fields, c: Context) => Promise<ControlAnswer<unknown>>,
  notice: string,
) {
  return async (c: Context) => {
    const fields = await formFields(c);
    const answer = await run(fields, c);
    if (c.req.header('x-dashboard-async') === '1') {
      return answer.ok ? c.body(null, 204) : c.text(answer.message, 400);
    }
    const back = backTo(field(fields, 'back'), fallback);
    return afterAction(c, back, answer.ok ? { ok: true, notice } : answer);
  };
}

/** A key, webhook or fault's scope fields as the control plane's request schemas name them. */
function scoped(fields: Fields) {
  const scope = field(fields, 'scope') ?? 'follow-owner';
  return {
    scope,
    ...(scope === 'one-domain' ? { domain: field(fields, 'domain') ?? '' } : {}),
    ...(scope === 'selected-mailbox' ? { mailboxes: fieldList(fields, 'mailboxes') } : {}),
  };
}

/** The changes an email form asks for, as the API's PATCH body (§4.5, D-20) would name them. */
function emailChanges(fields: Fields): { folder?: Folder; read?: boolean; starred?: boolean } {
  const flag = (name: 'read' | 'starred') => {
    const value = field(fields, name);
    return value === 'true' ? { [name]: true } : value === 'false' ? { [name]: false } : {};
  };
  const folder = field(fields, 'folder');
  return {
    ...flag('read'),
    ...flag('starred'),
    ...((FOLDERS as readonly string[]).includes(folder ?? '') ? { folder: folder as Folder } : {}),
  };
}

const CHANGED: Record<string, (value: string) => string> = {
  read: (v) => (v === 'true' ? 'Marked read.' : 'Marked unread.'),
  starred: (v) => (v === 'true' ? 'Starred.' : 'Unstarred.'),
  folder: (v) => `Moved to ${v}.`,
};

/**
 * The email page's controls (read, star, move, delete). The control plane has no email
 * operations, so these make the changes the API's PATCH and DELETE routes make
 * (routes/emails.ts), through the email service: the same folder names (D-5), flags and permanent removal (§4.6).
 */
function registerEmailActions(app: Hono, services: Services): void {
  const { emails } = services;
  app.post('/dashboard/emails/:id/update', async (c) => {
    const email = findEmail(services, c.req.param('id'));
    const changes = emailChanges(await formFields(c));
    const page = `/dashboard/emails/${seg(email.id)}`;
    if (Object.keys(changes).length === 0) {
      return afterAction(c, page, { ok: false, message: 'Nothing to change.' });
    }
    emails.update(email.id, changes);
    const notice = Object.entries(changes)
      .map(([name, value]) => CHANGED[name]?.(String(value)) ?? '')
      .join(' ');
    return afterAction(c, page, { ok: true, notice });
  });
  app.post('/dashboard/emails/:id/delete', (c) => {
    const email = findEmail(services, c.req.param('id'));
    emails.delete(email.id);
    return afterAction(c, `/dashboard/mailboxes/${seg(email.mailbox)}`, {
      ok: true,
      notice: `Deleted "${email.subject || '(no subject)'}".`,
    });
  });
}

/** The dashboard's POST routes, each one control-plane call (the email controls aside). */
export function registerActions(app: Hono, services: Services, control: DashboardControl): void {
  const id = (c: Context) => seg(c.req.param('id') ?? '');
  registerEmailActions(app, services);

  app.post('/dashboard/keys', async (c) => {
    const fields = await formFields(c);
    const answer = await control.call<{ name: string; secret: string }>('POST', '/keys', {
      ownerId: field(fields, 'ownerId') ?? '',
      name: field(fields, 'name') ?? '',
      ...scoped(fields),
    });
    // The secret is shown in this answer only, never put in a URL or kept.
    if (answer.ok) return keysPage(services, c, answer.body);
    return afterAction(c, '/dashboard/keys', answer);
  });
  app.post(
    '/dashboard/keys/:id/disable',
    act(
      '/dashboard/keys',
      (_, c) => control.call('POST', `/keys/${id(c)}/disable`),
      'Key disabled.',
    ),
  );
  app.post(
    '/dashboard/keys/:id/enable',
    act('/dashboard/keys', (_, c) => control.call('POST', `/keys/${id(c)}/enable`), 'Key enabled.'),
  );

  app.post('/dashboard/webhooks', async (c) => {
    const fields = await formFields(c);
    const answer = await control.call<{ id: string; secret: string }>('POST', '/webhooks', {
      ownerId: field(fields, 'ownerId') ?? '',
      url: field(fields, 'url') ?? '',
      ...scoped(fields),
    });
    // Like a key's, the signing secret is shown in this answer only.
    if (answer.ok) return webhooksPage(services)(c, answer.body);
    return afterAction(c, '/dashboard/webhooks', answer);
  });
  app.post(
    '/dashboard/webhooks/:id/test',
    act(
      '/dashboard/webhooks',
      (_, c) => control.call('POST', `/webhooks/${id(c)}/test`),
      'Test delivery sent.',
    ),
  );
  app.post(
    '/dashboard/webhooks/:id/enable',
    act(
      '/dashboard/webhooks',
      (_, c) => control.call('POST', `/webhooks/${id(c)}/enable`),
      'Webhook re-enabled.',
    ),
  );

  app.post(
    '/dashboard/suppressions',
    act(
      '/dashboard/suppressions',
      (fields) => {
        const reason = field(fields, 'reason');
        return control.call('POST', '/suppressions', {
          address: field(fields, 'address') ?? '',
          ...(reason === undefined ? {} : { reason }),
        });
      },
      'Address suppressed.',
    ),
  );
  app.post(
    '/dashboard/suppressions/:id/delete',
    act(
      '/dashboard/suppressions',
      (_, c) => control.call('DELETE', `/suppressions/${id(c)}`),
      'Address removed from the suppression list.',
    ),
  );

  app.post(
    '/dashboard/clock',
    act(
      '/dashboard/clock',
      (fields) => {
        const set = field(fields, 'set');
        if (set !== undefined) return control.call('POST', '/clock', { set });
        const advanceMs = Number(field(fields, 'amount')) * Number(field(fields, 'unit') ?? 1000);
        return control.call('POST', '/clock', { advanceMs });
      },
      'Clock moved.',
    ),
  );
  app.post(
    '/dashboard/faults',
    act(
      '/dashboard/clock',
      (fields) => {
        const mode = field(fields, 'mode') ?? 'error';
        return control.call('POST', '/faults', {
          operations: fieldList(fields, 'operations'),
          mode,
          count: Number(field(fields, 'count') ?? '1'),
          ...(mode === 'error' ? { status: Number(field(fields, 'status') ?? '503') } : {}),
        });
      },
      'Fault armed.',
    ),
  );
  app.post(
    '/dashboard/faults/clear',
    act('/dashboard/clock', () => control.call('DELETE', '/faults'), 'Faults cleared.'),
  );
  app.post(
    '/dashboard/chaos/clear',
    act('/dashboard/clock', () => control.call('DELETE', '/chaos'), 'Chaos rules cleared.'),
  );
}
