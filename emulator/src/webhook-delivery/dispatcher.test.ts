import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import { ControllableClock } from '../clock.ts';
import {
  MAX_ATTEMPTS,
  nextAttemptAt,
  RETRY_DELAYS_MS,
  shouldPause,
} from '../domain/webhook-policy.ts';
import { openStore } from '../store/store.ts';
import type { Connector } from './connector.ts';

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const publicResolver = async () => [{ address: '93.184.216.34', family: 4 as const }];
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function boot(path: string, connector: Connector, nowMs: number) {
  const deps = defaultDeps({
    store: openStore(path),
    connector,
    resolver: publicResolver,
    clock: new ControllableClock(() => nowMs),
    logError: () => {},
  });
  return { deps, services: createServices(deps) };
}

describe('the retry schedule (D-34, D-35)', () => {
  it('retries 6 times after 1 min, 5 min, 30 min, 2 h, 6 h and 12 h, then gives up', () => {
    expect(MAX_ATTEMPTS).toBe(7);
    const at = new Date(T0);
    expect(RETRY_DELAYS_MS.map((_, i) => nextAttemptAt(i + 1, at)!.getTime() - T0)).toEqual([
      60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000,
    ]);
    expect(nextAttemptAt(7, at)).toBeNull();
  });

  it('pauses at 15 consecutive failures, not 14', () => {
    expect(shouldPause(14)).toBe(false);
    expect(shouldPause(15)).toBe(true);
  });
});

describe('deliveries in a database file', () => {
  it('survive a restart: a retry pending at shutdown is attempted when it falls due after start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailtwin-dispatch-'));
    dirs.push(dir);
    const file = join(dir, 'mailtwin.db');

    const before = boot(file, async () => ({ status: 500 }), T0);
    const owner = before.services.directory.createOwner({ name: 'Acme' });
    const mailbox = before.services.directory.createMailbox({ address: 'hello@acme.test' }).address;
    before.services.directory.grant(owner.id, mailbox);
    const { webhook } = before.services.webhooks.create({
      ownerId: owner.id,
      url: 'https://hooks.example.com/in',
      scope: 'follow-owner',
    });
    before.services.inbound.injectJson({
      mailbox,
      from: 'bob@partner.test',
      subject: 'Persist me',
    });
    await before.services.dispatcher.runDue();
    expect(before.services.webhooks.deliveries(webhook.id)[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
    });
    before.deps.store.close();

    const received: string[] = [];
    const after = boot(
      file,
      async (delivery) => {
        received.push(delivery.body.toString('utf8'));
        return { status: 204 };
      },
      T0 + 61_000,
    );
    await after.services.dispatcher.runDue();
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!)).toMatchObject({
      event: 'email.received',
      data: { subject: 'Persist me' },
    });
    const [delivery] = after.services.webhooks.deliveries(webhook.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(delivery?.attemptLog.map((a) => a.statusCode)).toEqual([500, 204]);
    after.deps.store.close();
  });
});
