import { randomUUID } from 'node:crypto';
import { createApp, defaultDeps } from '../../emulator/src/app.ts';
import type { Need, TargetConfig } from './config.ts';

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
  /** The emulator's control plane (the dashboard's stand-in), when the target has one. */
  readonly control: { baseUrl: string; token: string } | undefined;
  /** What this target offers among the needs checks may declare. */
  readonly offers: ReadonlySet<Need>;
  fetch(request: Request): Promise<Response>;
}

/** The in-process emulator answers on this made-up origin; nothing is listening there. */
const IN_PROCESS_ORIGIN = 'http://mailtwin.test';

export function createTarget(config: TargetConfig): Target {
  if (config.kind === 'emulator') {
    const controlToken = `conformance-${randomUUID()}`;
    const app = createApp(defaultDeps({ controlToken, logError: () => {} }));
    return {
      kind: 'emulator',
      baseUrl: `${IN_PROCESS_ORIGIN}/openapi/v1`,
      origin: IN_PROCESS_ORIGIN,
      apiKey: undefined,
      control: { baseUrl: `${IN_PROCESS_ORIGIN}/_mailtwin/v1`, token: controlToken },
      offers: new Set<Need>(['destructive', 'control-plane', 'second-key']),
      fetch: async (request) => app.fetch(request),
    };
  }
  const baseUrl = config.baseUrl.replace(/\/+$/, '');
  return {
    kind: 'live',
    baseUrl,
    origin: new URL(baseUrl).origin,
    apiKey: config.apiKey,
    control: config.control,
    offers: new Set<Need>([
      ...(config.destructive ? (['destructive'] as const) : []),
      ...(config.control ? (['control-plane', 'second-key'] as const) : []),
    ]),
    fetch: (request) => fetch(request, { redirect: 'manual' }),
  };
}
