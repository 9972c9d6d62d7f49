/**
 * A separately started emulator reached as an API world (issue 15): the suite gets no control
 * plane, only what a deployment's dashboard gives a vendor: keys by role, a disabled key and a
 * key of a disabled owner, a suppressed address, four mailboxes, and a webhook whose URL leads
 * to the suite's receiver. The dashboard's part is played by control-plane calls made here,
 * before the run, never by the suite. Shared by the API-world test, `npm run can-fail --world
 * api` and `npm run variants --targets api`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { required, startServer, type StartedServer } from './live-target.ts';

/** Four of the demo owner's mailboxes: checks of delivery to several recipients use four. */
export const API_WORLD_MAILBOXES = [
  'hello@acme.test',
  'support@acme.test',
  'billing@acme.test',
  'maria.lopez@acme.test',
];

/** Folders an emulator's mailbox lists, unfiltered first: where the run's mail could be left. */
const FOLDERS = ['', 'inbox', 'sent', 'archive', 'spam', 'trash'];

export interface ApiWorld {
  server: StartedServer;
  /** The suite's flags for this target: no --control-url, everything else a vendor would give. */
  flags: string[];
  /** A control-plane call, as the deployment's dashboard would make it. */
  dashboard<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Every id `mailbox` lists, in each folder, read with the demo owner's key. */
  listedIds(mailbox: string): Promise<Set<string>>;
  stop(): Promise<void>;
}

interface FixtureKey {
  owner: string;
  scope: string;
  secret: string;
}

/**
 * Starts `mailtwin serve` in `workspace` (mail arriving `delayMs` after the send answers, and
 * `extraArgs`, a `--binding` say) and provisions it as a dashboard would; `flags` are what the
 * suite needs besides run options.
 */
export async function startApiWorld(
  workspace: string,
  delayMs: number,
  extraArgs: readonly string[] = [],
): Promise<ApiWorld> {
  const fixture = JSON.parse(readFileSync(join(workspace, 'fixtures/demo.json'), 'utf8')) as {
    keys: FixtureKey[];
    suppressions: { address: string }[];
  };
  const demoKey = (owner: string, scope: string) => {
    const key = fixture.keys.find((k) => k.owner === owner && k.scope === scope);
    if (key === undefined) throw new Error(`fixtures/demo.json has no ${scope} key of ${owner}`);
    return key.secret;
  };
  // Loopback webhooks allowed: the webhook's "public" URL is the suite's receiver on this machine.
  const server = await startServer(workspace, [
    '--delivery-delay-ms',
    String(delayMs),
    '--allow-loopback-webhooks',
    ...extraArgs,
  ]);
  const dashboard = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${required(server.vars, 'MAILTWIN_CONTROL_URL')}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${required(server.vars, 'MAILTWIN_CONTROL_TOKEN')}`,
        'Content-Type': 'application/json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };
  const listedIds = async (mailbox: string) => {
    const base = required(server.vars, 'MAILTWIN_BASE_URL');
    const ids = new Set<string>();
    for (const folder of FOLDERS) {
      const query = new URLSearchParams({ mailbox, limit: '100', ...(folder ? { folder } : {}) });
      const response = await fetch(`${base}/emails?${query}`, {
        headers: { Authorization: `Bearer ${demoKey('own_acme', 'follow-owner')}` },
      });
      for (const email of ((await response.json()) as { emails: { id: string }[] }).emails)
        ids.add(email.id);
    }
    return ids;
  };
  try {
    const disabled = await dashboard<{ id: string; secret: string }>('POST', '/keys', {
      ownerId: 'own_acme',
      name: 'Retired integration',
      scope: 'follow-owner',
    });
    await dashboard('POST', `/keys/${disabled.id}/disable`);
    const gone = await dashboard<{ id: string }>('POST', '/owners', { name: 'Former customer' });
    const goneKey = await dashboard<{ secret: string }>('POST', '/keys', {
      ownerId: gone.id,
      name: 'Former app',
      scope: 'follow-owner',
    });
    await dashboard('POST', `/owners/${gone.id}/disable`);
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}/hooks/mailtwin`;
    const webhook = await dashboard<{ id: string; secret: string }>('POST', '/webhooks', {
      ownerId: 'own_acme',
      url: publicUrl,
      scope: 'follow-owner',
    });
    const flags = [
      '--base-url',
      required(server.vars, 'MAILTWIN_BASE_URL'),
      ...keyFlag('follow-owner', demoKey('own_acme', 'follow-owner')),
      ...keyFlag('one-domain', demoKey('own_acme', 'one-domain')),
      ...keyFlag('selected-mailbox', demoKey('own_acme', 'selected-mailbox')),
      ...keyFlag('other-owner', demoKey('own_northwind', 'follow-owner')),
      ...keyFlag('disabled', disabled.secret),
      ...keyFlag('disabled-owner', goneKey.secret),
      '--webhook-listen',
      `127.0.0.1:${port}`,
      '--webhook-public-url',
      publicUrl,
      '--webhook-secret',
      webhook.secret,
      '--webhook-id',
      webhook.id,
      '--suppressed',
      fixture.suppressions[0]!.address,
      ...API_WORLD_MAILBOXES.flatMap((mailbox) => ['--mailbox', mailbox]),
      '--destructive',
      '--max-rps',
      '0',
    ];
    return { server, flags, dashboard, listedIds, stop: () => server.stop() };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

const keyFlag = (role: string, secret: string) => ['--key', `${role}=${secret}`];

/** A port nothing listens on now, for the suite's webhook receiver. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
