import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import type { Services } from './deps.ts';
import { signInUrl } from './dashboard/session.ts';
import type { ServeOptions } from './cli-options.ts';
import { lookupOf, secretMatches } from './domain/api-key-secrets.ts';
import { validateFixture } from './fixtures/fixture-schema.ts';
import type { FixtureSummary } from './fixtures/load-fixture.ts';
import type { SinkRecord } from './services/webhook-sink.ts';
import { packagePath } from './package-root.ts';

/** What the store held or received at start-up, for the banner. */
export type Loaded =
  | { kind: 'fixture'; path: string; summary: FixtureSummary }
  | { kind: 'none' }
  | { kind: 'existing'; owners: number; mailboxes: number; emails: number };

/**
 * Secrets the banner may print: keys and webhooks of a fixture with their secrets, and those of
 * the fixture's first key and first webhook (MAILTWIN_API_KEY, MAILTWIN_WEBHOOK_SECRET).
 */
export interface KnownSecrets extends Pick<FixtureSummary, 'keys' | 'webhooks'> {
  apiKey: string | undefined;
  webhookSecret: string | undefined;
}

/** The secrets of a fixture just loaded. */
export function loadedSecrets(summary: FixtureSummary | undefined): KnownSecrets {
  const keys = summary?.keys ?? [];
  const webhooks = summary?.webhooks ?? [];
  return { keys, webhooks, apiKey: keys[0]?.secret, webhookSecret: webhooks[0]?.secret };
}

/**
 * The secrets of a fixture loaded into this database on an earlier start, so the banner's
 * `KEY=value` lines stay the same across restarts. The store keeps only a hash of a key's
 * secret, so a fixture's key is printed only when a stored key of that id still has a hash its
 * secret matches. A webhook's signing secret is stored as is; the stored one is printed for
 * each of the fixture's webhooks that still exists. A fixture that cannot be read gives none.
 */
export async function recoverSecrets(
  services: Services,
  fixturePath: string | null,
): Promise<KnownSecrets> {
  const none = loadedSecrets(undefined);
  if (fixturePath === null) return none;
  let fixture;
  try {
    fixture = validateFixture(JSON.parse(await readFile(fixturePath, 'utf8')));
  } catch {
    return none;
  }
  const { directory, webhooks } = services.deps.store;
  const keys = (fixture.keys ?? []).flatMap((key) => {
    const lookup = lookupOf(key.secret);
    const stored = lookup === undefined ? undefined : directory.findKeyByLookup(lookup);
    if (stored === undefined || stored.key.id !== key.id) return [];
    if (!secretMatches(key.secret, stored.secretHash)) return [];
    const { id, name, ownerId, scope } = stored.key;
    return [{ id, name, ownerId, scope, secret: key.secret }];
  });
  const hooks = (fixture.webhooks ?? []).flatMap((webhook) => {
    const stored = webhooks.get(webhook.id);
    const secret = webhooks.secretOf(webhook.id);
    return stored === undefined || secret === undefined
      ? []
      : [{ id: stored.id, url: stored.url, secret }];
  });
  // Only the fixture's first key and webhook, as on the first start: never a stand-in.
  const firstKey = fixture.keys?.[0];
  const firstWebhook = fixture.webhooks?.[0];
  return {
    keys,
    webhooks: hooks,
    apiKey: keys.find((k) => k.id === firstKey?.id)?.secret,
    webhookSecret: hooks.find((w) => w.id === firstWebhook?.id)?.secret,
  };
}

/** Whether `--host` keeps the emulator to this machine: `localhost` or a loopback address. */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(name)) return false;
  const address = ipaddr.process(name);
  return address.range() === 'loopback';
}

/**
 * The banner's warnings (D-66): a `--host` beyond loopback lets other machines use the
 * emulator with the published demo key and see its mail; `--allowed-hosts all` lets any web
 * page open in a browser here do so by DNS rebinding.
 */
function exposureWarnings(options: ServeOptions, label: string, demoKey: boolean): string[] {
  const warnings: string[] = [];
  if (!isLoopbackHost(options.host)) {
    const where = ['0.0.0.0', '::', '[::]'].includes(options.host)
      ? 'every network this machine is on'
      : `whoever can reach ${options.host}`;
    warnings.push(
      `--host ${options.host} exposes the emulator to ${where}: its API${demoKey ? ' (with the published demo key)' : ''}, its mail and its dashboard; keep it on 127.0.0.1 unless that is meant`,
    );
  }
  if (options.allowedHosts === 'all') {
    warnings.push(
      '--allowed-hosts all: every Host is answered, so any web page open in a browser on this machine can read, send and delete its mail by DNS rebinding',
    );
  }
  return warnings.map((warning, i) => `${i === 0 ? label : ' '.repeat(label.length)}${warning}`);
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? '';
}

/**
 * Human lines first; then, last, the `KEY=value` lines a script can read (only those that
 * exist: no MAILTWIN_API_KEY when no key secret is known), ending with MAILTWIN_PID, the
 * server's own process id, which stops it whatever launched it.
 */
export function banner(input: {
  origin: string;
  options: ServeOptions;
  loaded: Loaded;
  secrets: KnownSecrets;
  fixturePath: string | null;
  services: Services;
  demo: SinkRecord | undefined;
  /** The SMTP ingress's URL, or null with --no-smtp. */
  smtpUrl?: string | null;
  pid: number;
  /** Where the binding spoken came from (`--binding`, `--contract`); null for DECISIONS' own. */
  bindingSource?: string | null;
}): string {
  const { origin, options, loaded, secrets, services, demo } = input;
  const { directory } = services.deps.store;
  const baseUrl = `${origin}/openapi/v1`;
  const controlUrl = `${origin}/_mailtwin/v1`;
  const label = (name: string) => `  ${name.padEnd(11)}`;
  const lines = [
    `mailtwin ${version()}: Email Service API emulator`,
    `${label('API')}${baseUrl}`,
    `${label('Dashboard')}${origin}/`,
    `${label('Sign in')}${signInUrl(origin, services.deps.controlToken)} (open once: it sets the dashboard's cookie)`,
    `${label('Reference')}${origin}/openapi/docs`,
    `${label('Spec')}${origin}/openapi/openapi.json`,
    ...(services.dialect !== null || input.bindingSource
      ? [
          `${label('Binding')}${services.deps.binding?.name ?? 'unnamed'} (${input.bindingSource ?? 'given'}${services.dialect === null ? '; the same as spec/DECISIONS.md, nothing mapped' : ''})`,
        ]
      : []),
    `${label('Control')}${controlUrl} (Authorization: Bearer $MAILTWIN_CONTROL_TOKEN)`,
    ...(input.smtpUrl
      ? [`${label('SMTP')}${input.smtpUrl} (mail for the emulator's mailboxes)`]
      : []),
    `${label('Database')}${options.db === null ? 'in memory (lost when mailtwin stops)' : options.db}`,
  ];
  const { keys, webhooks } = secrets;
  if (loaded.kind === 'fixture') {
    const { summary } = loaded;
    lines.push(
      `${label('Loaded')}${loaded.path}: ${plural(summary.owners, 'owner')}, ` +
        `${plural(summary.mailboxes, 'mailbox', 'mailboxes')}, ${plural(summary.emails, 'email')}, ` +
        `${plural(summary.suppressions, 'suppressed address', 'suppressed addresses')}`,
    );
  } else if (loaded.kind === 'existing') {
    const why =
      keys.length > 0
        ? `key secrets from ${input.fixturePath ?? 'the fixture'}, checked against the stored hashes`
        : 'key secrets are not stored, so none is printed';
    lines.push(
      `${label('Loaded')}nothing: the database already holds ${plural(loaded.owners, 'owner')}, ` +
        `${plural(loaded.mailboxes, 'mailbox', 'mailboxes')}, ${plural(loaded.emails, 'email')} ` +
        `(${why})`,
    );
  } else {
    lines.push(`${label('Loaded')}nothing (--no-demo): add data through the control plane`);
  }
  const nameWidth = Math.max(0, ...keys.map((k) => k.name.length));
  keys.forEach((summaryKey, i) => {
    const key = directory.getKey(summaryKey.id);
    const owner = directory.getOwner(summaryKey.ownerId)?.name ?? summaryKey.ownerId;
    const scope =
      key?.scope === 'one-domain'
        ? `one-domain ${key.domain}`
        : key?.scope === 'selected-mailbox'
          ? `selected-mailbox ${key.mailboxes.join(', ')}`
          : summaryKey.scope;
    lines.push(
      `${label(i === 0 ? 'API keys' : '')}${summaryKey.name.padEnd(nameWidth)}  ${summaryKey.secret}  ${scope} (${owner})`,
    );
  });
  webhooks.forEach((webhook, i) => {
    lines.push(
      `${label(i === 0 ? 'Webhooks' : '')}${webhook.id} → ${webhook.url.replace('{origin}', origin)}`,
    );
  });
  if (demo !== undefined) {
    const verdict = demo.verified
      ? 'signature verified'
      : `NOT verified (${demo.error ?? 'unknown'})`;
    lines.push(
      `${label('Delivered')}${demo.event} "${demo.subject ?? ''}" to the sink, ${verdict} (GET ${controlUrl}/sink)`,
    );
  }
  lines.push(...exposureWarnings(options, label('Warning'), secrets.apiKey !== undefined));
  if (options.allowLoopbackWebhooks) {
    lines.push(
      `${label('Note')}webhook targets on loopback are allowed (--allow-loopback-webhooks)`,
    );
  }
  if (options.deliveryDelayMs > 0) {
    lines.push(
      `${label('Note')}mail sent to a mailbox here arrives ${options.deliveryDelayMs} ms after the send answers (--delivery-delay-ms); lost if mailtwin stops first`,
    );
  }
  lines.push('', `MAILTWIN_BASE_URL=${baseUrl}`);
  if (secrets.apiKey !== undefined) lines.push(`MAILTWIN_API_KEY=${secrets.apiKey}`);
  lines.push(
    `MAILTWIN_CONTROL_URL=${controlUrl}`,
    `MAILTWIN_CONTROL_TOKEN=${services.deps.controlToken}`,
  );
  if (secrets.webhookSecret !== undefined) {
    lines.push(`MAILTWIN_WEBHOOK_SECRET=${secrets.webhookSecret}`);
  }
  if (input.smtpUrl) lines.push(`MAILTWIN_SMTP_URL=${input.smtpUrl}`);
  lines.push(`MAILTWIN_PID=${input.pid}`, '');
  return lines.join('\n');
}
