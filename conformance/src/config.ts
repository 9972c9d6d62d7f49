/**
 * What the suite runs against, handed from the `mailtwin-conformance` process to the vitest
 * workers through one environment variable (workers inherit the environment).
 */

/** Something a check may need that not every target offers; a check lacking one is skipped. */
export type Need = 'control-plane' | 'second-key' | 'webhook-receiver' | 'destructive';

export const NEED_DESCRIPTIONS: Record<Need, string> = {
  'control-plane': 'the emulator control plane (give --control-url and --control-token)',
  'second-key': 'a second API key of another owner (give --second-api-key)',
  'webhook-receiver':
    'a webhook receiver the target can reach (give --webhook-secret and --webhook-url)',
  destructive: 'permission to delete and modify email in the given mailboxes',
};

export type TargetConfig =
  | { kind: 'emulator' }
  | {
      kind: 'live';
      /** The full versioned endpoint, `{base_url}` of §1, ending in /openapi/v1. */
      baseUrl: string;
      apiKey: string;
      /** Mailboxes the suite may use; it touches no other. */
      mailboxes: string[];
      destructive: boolean;
      /** A control plane like the emulator's (/_mailtwin/v1), when the deployment offers one. */
      control?: { baseUrl: string; token: string };
    };

export interface RunConfig {
  target: TargetConfig;
  seed: number;
  numRuns: number;
}

export const RUN_CONFIG_ENV = 'MAILTWIN_CONFORMANCE_CONFIG';

export function encodeRunConfig(config: RunConfig): string {
  return JSON.stringify(config);
}

/** The run configuration in a worker; defaults to the in-process emulator with a fixed seed. */
export function readRunConfig(env: NodeJS.ProcessEnv = process.env): RunConfig {
  const raw = env[RUN_CONFIG_ENV];
  if (raw === undefined || raw === '')
    return { target: { kind: 'emulator' }, seed: 1, numRuns: 50 };
  return JSON.parse(raw) as RunConfig;
}
