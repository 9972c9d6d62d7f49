import { html } from 'hono/html';
import type { Chaos, ChaosRuleView } from '../../chaos/chaos.ts';
import { actionButton } from '../format.ts';
import { listTable } from '../parts.ts';

/** What a rule matches, in one line: `http sendEmail`, `http GET /emails`, `smtp rcpt`. */
function matchOf(rule: ChaosRuleView): string {
  const http = [rule.method, rule.path].filter((p) => p !== undefined).join(' ');
  const what =
    rule.surface === 'http'
      ? (rule.operation ?? (http || 'every operation'))
      : rule.surface === 'smtp'
        ? (rule.stage ?? 'every stage')
        : [rule.webhookId ?? 'every webhook', rule.event ?? ''].join(' ').trim();
  return `${rule.surface} ${what}`;
}

/** What a rule does when it fires, besides its latency. */
function effectOf(rule: ChaosRuleView): string {
  if (rule.error !== undefined) return `${rule.error.status} ${rule.error.code}`;
  if (rule.reply !== undefined) return `${rule.reply.code} ${rule.reply.text}`;
  if (rule.delivery !== undefined)
    return rule.delivery.status === undefined
      ? rule.delivery.outcome
      : `${rule.delivery.outcome} (${rule.delivery.status})`;
  return 'latency only';
}

/**
 * The chaos rules in force (docs/chaos.md), in the order they are tried, with how often each
 * matched and fired, and the seed that replays them. Armed with `PUT /_mailtwin/v1/chaos`;
 * cleared there with `DELETE` or here with the button.
 */
export function chaosSection(chaos: Chaos) {
  const { seed, rules } = chaos.list();
  return html`<h2>Chaos rules</h2>
    <p class="muted">
      Seeded rules over API operations, SMTP stages and webhook deliveries; armed and cleared with
      <code>PUT</code> and <code>DELETE /_mailtwin/v1/chaos</code>. Seed
      <span id="chaos-seed">${seed}</span> replays them.
    </p>
    ${listTable(
      'chaos',
      ['Id', 'Matches', 'Probability', 'Latency', 'Effect', 'Matched', 'Fired'],
      rules.map(
        (rule) =>
          html`<tr>
            <td>${rule.id}</td>
            <td>${matchOf(rule)}</td>
            <td>${rule.probability}</td>
            <td>${rule.latencyMs} ms</td>
            <td>${effectOf(rule)}</td>
            <td>${rule.matched}</td>
            <td class="fired">${rule.fired}</td>
          </tr>`,
      ),
      'No chaos rule armed.',
    )}
    ${
      rules.length === 0
        ? ''
        : html`<p>
            ${actionButton('/dashboard/chaos/clear', 'Clear chaos rules', '/dashboard/clock', {
              danger: true,
            })}
          </p>`
    }`;
}
