import { randomUUID } from 'node:crypto';
import {
  httpConnector,
  inProcessEmulator,
  type Connector,
  type Resolver,
} from '../../../emulator/src/in-process.ts';
import type { Target } from '../client/target.ts';
import { DEFAULT_DELIVERY_TIMEOUT_MS, type TargetConfig } from '../run/config.ts';
import { offeredNeeds } from '../run/profiles.ts';

/** The delivery deadline of the in-process emulator (`--webhook-timeout-ms`). */
const IN_PROCESS_WEBHOOK_TIMEOUT_MS = 400;

/** The in-process emulator answers on this made-up origin; nothing is listening there. */
const IN_PROCESS_ORIGIN = 'http://mailtwin.test';

/**
 * The public name of the suite's receiver for the in-process emulator, and the public address
 * its resolver gives it: never connected to, the connector leads it to loopback instead.
 */
const RECEIVER_HOST = 'receiver.mailtwin-conformance.example';
const RECEIVER_ADDRESS = '93.184.216.34';

/** Only the receiver's name resolves; nothing else may leave this machine. */
const receiverResolver: Resolver = async (hostname) => {
  if (hostname.toLowerCase().replace(/\.$/, '') === RECEIVER_HOST)
    return [{ address: RECEIVER_ADDRESS, family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

/** Deliveries to the receiver's name go to loopback, on the URL's port; nothing else is sent. */
const receiverConnector: Connector = async (delivery) => {
  if (delivery.address !== RECEIVER_ADDRESS || delivery.url.hostname !== RECEIVER_HOST)
    throw new Error(`the suite connects to no address but its receiver's (${delivery.address})`);
  return httpConnector({ ...delivery, address: '127.0.0.1' });
};

export function createTarget(config: TargetConfig): Target {
  if (config.kind === 'emulator') {
    const controlToken = `conformance-${randomUUID()}`;
    // Strict about webhook targets, as deployed (§2.5: no local addresses, so the guard checks
    // are real); the suite's receiver on this machine is reached by a public name its resolver
    // and connector lead here. A short delivery deadline, so the time-out check takes
    // milliseconds, not 10 s.
    const emulator = inProcessEmulator({
      controlToken,
      allowLoopbackWebhooks: false,
      resolver: receiverResolver,
      connector: receiverConnector,
      webhookTimeoutMs: IN_PROCESS_WEBHOOK_TIMEOUT_MS,
      // Its made-up origin is a name, so it is served as `--allowed-hosts` would (D-66).
      hosts: { allowed: [new URL(IN_PROCESS_ORIGIN).hostname] },
      logError: () => {},
      // `--emulator-binding`: the emulator speaks another deployment's names; the suite
      // learns them as from any target, from the document it publishes.
      ...(config.binding === undefined ? {} : { bindingFile: config.binding }),
    });
    return {
      kind: 'emulator',
      baseUrl: `${IN_PROCESS_ORIGIN}/openapi/v1`,
      origin: IN_PROCESS_ORIGIN,
      apiKey: undefined,
      control: { baseUrl: `${IN_PROCESS_ORIGIN}/_mailtwin/v1`, token: controlToken },
      offers: offeredNeeds(config),
      receiverHost: RECEIVER_HOST,
      webhookTimeoutMs: IN_PROCESS_WEBHOOK_TIMEOUT_MS,
      deliveryTimeoutMs: DEFAULT_DELIVERY_TIMEOUT_MS,
      fetch: (request) => emulator.fetch(request),
    };
  }
  const baseUrl = config.baseUrl.replace(/\/+$/, '');
  return {
    kind: 'live',
    baseUrl,
    origin: new URL(baseUrl).origin,
    apiKey: config.apiKey,
    ...(config.secondApiKey === undefined ? {} : { secondApiKey: config.secondApiKey }),
    ...(config.keys === undefined ? {} : { keys: config.keys }),
    ...(config.suppressed === undefined ? {} : { suppressed: config.suppressed }),
    ...(config.webhook === undefined ? {} : { webhook: config.webhook }),
    deliveryTimeoutMs: config.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
    mailboxes: config.mailboxes,
    control: config.control,
    offers: offeredNeeds(config),
    fetch: (request) => fetch(request, { redirect: 'manual' }),
  };
}
