import { randomUUID } from 'node:crypto';
import { createApp, defaultDeps } from '../../emulator/src/app.ts';
import {
  DEFAULT_DELIVERY_TIMEOUT_MS,
  type KeyRole,
  type Need,
  type TargetConfig,
} from './config.ts';
import { offeredNeeds } from './profiles.ts';

/**
 * Something that answers the API: the emulator in this process (no socket), or a live
 * deployment reached over HTTP. Checks see only this interface, so one suite serves both.
 */
export interface Target {
  readonly kind: TargetConfig['kind'];
  /** `{base_url}` (§1): the full versioned endpoint, ending in /openapi/v1. */
  readonly baseUrl: string;
  /** `{origin}` (§1): scheme and host. */
  readonly origin: string;
  readonly apiKey: string | undefined;
  /** A key of another owner (`--second-api-key`), when one was given. */
  readonly secondApiKey?: string;
  /** Every key given, by role (`--key`; `--api-key` and `--second-api-key` included). */
  readonly keys?: Readonly<Partial<Record<KeyRole, string>>>;
  /** Addresses on the target's suppression list (`--suppressed`). */
  readonly suppressed?: readonly string[];
  /** The receiver a webhook made in the target's dashboard points at (`--webhook-*`). */
  readonly webhook?: NonNullable<Extract<TargetConfig, { kind: 'live' }>['webhook']>;
  /** How long sent mail may take to arrive before a check fails (`--delivery-timeout`). */
  readonly deliveryTimeoutMs: number;
  /** The `--mailbox` addresses: against a live target, mail goes to no other (client.ts). */
  readonly mailboxes?: readonly string[];
  /** The emulator's control plane (the dashboard's stand-in), when the target has one. */
  readonly control: { baseUrl: string; token: string } | undefined;
  /** How long the target waits for a webhook receiver, when known (D-30 says 10 s). */
  readonly webhookTimeoutMs?: number;
  /** What this target offers among the needs checks may declare. */
  readonly offers: ReadonlySet<Need>;
  fetch(request: Request): Promise<Response>;
}

/** The delivery deadline of the in-process emulator (`--webhook-timeout-ms`). */
const IN_PROCESS_WEBHOOK_TIMEOUT_MS = 400;

/** The in-process emulator answers on this made-up origin; nothing is listening there. */
const IN_PROCESS_ORIGIN = 'http://mailtwin.test';

export function createTarget(config: TargetConfig): Target {
  if (config.kind === 'emulator') {
    const controlToken = `conformance-${randomUUID()}`;
    // Loopback webhook targets allowed, so checks can run their own receiver on this machine;
    // a short delivery deadline, so the time-out check takes milliseconds, not 10 s.
    const app = createApp(
      defaultDeps({
        controlToken,
        allowLoopbackWebhooks: true,
        webhookTimeoutMs: IN_PROCESS_WEBHOOK_TIMEOUT_MS,
        logError: () => {},
      }),
    );
    return {
      kind: 'emulator',
      baseUrl: `${IN_PROCESS_ORIGIN}/openapi/v1`,
      origin: IN_PROCESS_ORIGIN,
      apiKey: undefined,
      control: { baseUrl: `${IN_PROCESS_ORIGIN}/_mailtwin/v1`, token: controlToken },
      offers: offeredNeeds(config),
      webhookTimeoutMs: IN_PROCESS_WEBHOOK_TIMEOUT_MS,
      deliveryTimeoutMs: DEFAULT_DELIVERY_TIMEOUT_MS,
      fetch: async (request) => app.fetch(request),
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
