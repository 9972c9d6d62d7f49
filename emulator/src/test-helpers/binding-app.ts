/**
 * For the binding tests: the emulator on the demo data with predictable ids and time, speaking
 * a binding (or none), called through `app.request` as a client would. Only tests import it.
 */
import { createApp, createServices, defaultDeps } from '../app.ts';
import type { Services } from '../deps.ts';
import type { Binding } from '../binding/binding.ts';
import { ControllableClock } from '../clock.ts';
import { loadFixtureFile } from '../fixtures/load-fixture.ts';
import type { Ids } from '../ids.ts';
import { packagePath } from '../package-root.ts';
import type { Connector } from '../webhook-delivery/connector.ts';

export const DEMO_KEY = 'sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU';
const T0 = Date.parse('2026-11-20T10:02:11.482Z');

/** Ids counted from 1: two instances given the same requests make the same ids. */
export function countingIds(): Ids {
  let n = 0;
  const next = () => (n += 1);
  return {
    emailId: () => `01JD8ZZZZZZZZZZZZZZZZZ${String(next()).padStart(4, '0')}`,
    uuid: () => `00000000-0000-4000-8000-${String(next()).padStart(12, '0')}`,
    prefixed: (prefix) => `${prefix}_${String(next()).padStart(8, '0')}`,
    secret: (length) => 'S'.repeat(length),
  };
}

export interface BootedApp {
  services: Services;
  /** A request with the demo key, JSON body when given. */
  call: (method: string, path: string, body?: unknown) => Promise<Response>;
}

export async function bootDemo(
  binding: Binding | null,
  connector: Connector = async () => ({ status: 204 }),
): Promise<BootedApp> {
  const deps = defaultDeps({
    binding,
    ids: countingIds(),
    clock: new ControllableClock(() => T0),
    connector,
    resolver: async () => [{ address: '93.184.216.34', family: 4 as const }],
    logError: () => {},
  });
  const services = createServices(deps);
  await loadFixtureFile(services, packagePath('fixtures/demo.json'));
  const app = createApp(deps, services);
  return {
    services,
    call: async (method, path, body) =>
      app.request(path, {
        method,
        headers: {
          Authorization: `Bearer ${DEMO_KEY}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
  };
}
