import type { Context } from 'hono';
import { html } from 'hono/html';
import type { Services } from '../../deps.ts';
import type { WebhookExchange } from '../../events.ts';
import type { Attempt, Webhook } from '../../services/webhook-service.ts';
import type { ExchangeLog } from '../exchange-log.ts';
import { page } from '../layout.ts';
import { actionButton, seg, when } from '../format.ts';
import { listTable, ownerAndScopeFields, scopeText, secretNotice } from '../parts.ts';

function webhookActions(webhook: Webhook, back: string) {
  const base = `/dashboard/webhooks/${seg(webhook.id)}`;
  return html`${actionButton(`${base}/test`, 'Send test', back, { async: true })}
  ${webhook.status === 'paused' ? actionButton(`${base}/enable`, 'Re-enable', back) : ''}`;
}

/** `{origin}` (the demo sink's URL) as this instance's own origin once it listens. */
const shownUrl = (services: Services, url: string) =>
  url.replace('{origin}', services.deps.selfOrigin.value ?? '{origin}');

/** `/dashboard/webhooks`: every webhook, Send test, Re-enable, and a form to add one. */
export function webhooksPage(services: Services) {
  return (c: Context, created?: { id: string; secret: string }) => {
    const webhooks = services.webhooks.list();
    const owners = services.directory.owners();
    const ownerName = new Map(owners.map((o) => [o.id, o.name]));
    const rows = webhooks.map(
      (w) =>
        html`<tr data-webhook-id="${w.id}">
          <td><a href="/dashboard/webhooks/${seg(w.id)}">${w.id}</a></td>
          <td>${ownerName.get(w.ownerId) ?? w.ownerId}</td>
          <td>${shownUrl(services, w.url)}</td>
          <td>${scopeText(w)}</td>
          <td>
            <span class="badge ${w.status}">${w.status}</span>
            ${
              w.consecutiveFailures > 0
                ? html`<span class="muted">${w.consecutiveFailures} failures in a row</span>`
                : ''
            }
          </td>
          <td>${webhookActions(w, '/dashboard/webhooks')}</td>
        </tr>`,
    );
    return page(c, {
      title: 'Webhooks',
      section: '/dashboard/webhooks',
      live: ['webhooks'],
      body: html`${
          created === undefined
            ? ''
            : secretNotice(
                html`Webhook ${created.id} added. Its signing secret, shown only now:`,
                created.secret,
              )
        }
        ${listTable(
          'webhooks',
          ['Id', 'Owner', 'URL', 'Scope', 'Status', ''],
          rows,
          'No webhook yet.',
        )}
        <h2>Add a webhook</h2>
        <form class="card" method="post" action="/dashboard/webhooks">
          <label>URL <input name="url" type="url" required size="40" /></label>
          ${ownerAndScopeFields(owners)}
          <button type="submit">Add webhook</button>
        </form>`,
    });
  };
}

function exchangeView(exchange: WebhookExchange | undefined) {
  if (exchange === undefined) {
    return html`<p class="muted">
      The bytes of this attempt are not kept (only attempts made since this emulator started are).
    </p>`;
  }
  const { request, response } = exchange;
  const headerLines = Object.entries(request.headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  return html`<h4>Signed request</h4>
    <pre class="request">
POST ${request.url}
${headerLines}

${request.body}</pre>
    <h4>Receiver's answer</h4>
    ${
      response === null
        ? html`<p class="muted">No answer.</p>`
        : html`<pre class="response">
HTTP ${response.status}

${response.body ?? ''}</pre>`
    }`;
}

function attemptView(deliveryId: string, attempt: Attempt, exchange: WebhookExchange | undefined) {
  const ok = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
  return html`<details class="attempt" id="${deliveryId}-${attempt.number}">
    <summary>
      Attempt ${attempt.number} at ${when(attempt.at)}:
      <span class="badge ${ok ? 'ok' : 'bad'}">${attempt.statusCode ?? 'no answer'}</span>
      ${attempt.error ?? ''} <span class="muted">${attempt.latencyMs} ms</span>
    </summary>
    ${exchangeView(exchange)}
  </details>`;
}

/** `/dashboard/webhooks/:id`: its deliveries, newest first, with every attempt. */
export function webhookPage(services: Services, exchanges: ExchangeLog) {
  return (c: Context) => {
    const webhook = services.webhooks.get(c.req.param('id') ?? '');
    const deliveries = services.webhooks.deliveries(webhook.id);
    const back = `/dashboard/webhooks/${seg(webhook.id)}`;
    // Every attempt is itemized in the store, a Send test's included.
    const items = deliveries.map((d) => {
      return html`<section class="card-box delivery" data-delivery-id="${d.id}">
        <strong>${d.event}</strong>
        <span class="badge ${d.status}">${d.status}</span>
        <span class="muted">${d.id} · created ${when(d.createdAt)}</span>
        ${
          d.emailId === null
            ? ''
            : html`· email <a href="/dashboard/emails/${seg(d.emailId)}">${d.emailId}</a>`
        }
        <div>
          ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}
          ${d.nextAttemptAt === null ? '' : html`· next retry ${when(d.nextAttemptAt)}`}
        </div>
        ${d.attemptLog.map((a) => attemptView(d.id, a, exchanges.get(d.id, a.number)?.exchange))}
      </section>`;
    });
    return page(c, {
      title: `Webhook ${webhook.id}`,
      section: '/dashboard/webhooks',
      live: [`webhook:${webhook.id}`],
      body: html`<p><a href="/dashboard/webhooks">« Webhooks</a></p>
        <dl class="meta">
          <dt>URL</dt>
          <dd>${shownUrl(services, webhook.url)}</dd>
          <dt>Scope</dt>
          <dd>${scopeText(webhook)}</dd>
          <dt>Status</dt>
          <dd>
            <span class="badge ${webhook.status}">${webhook.status}</span>
            ${webhook.consecutiveFailures} consecutive failures
          </dd>
        </dl>
        <p>${webhookActions(webhook, back)}</p>
        <h2>Deliveries</h2>
        <div class="deliveries">
          ${items.length === 0 ? html`<p class="muted">No delivery yet.</p>` : items}
        </div>`,
    });
  };
}
