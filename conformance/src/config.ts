/**
 * What the suite runs against and how, handed from the `mailtwin-conformance` process to the
 * vitest workers through one environment variable (workers inherit the environment).
 */

/** Something a check may need that not every target offers; a check lacking one is skipped. */
export type Need = 'control-plane' | 'second-key' | 'webhook-receiver' | 'destructive';

export const NEEDS: readonly Need[] = [
  'control-plane',
  'second-key',
  'webhook-receiver',
  'destructive',
];

export const NEED_DESCRIPTIONS: Record<Need, string> = {
  'control-plane': 'the emulator control plane (give --control-url and --control-token)',
  'second-key':
    'a second API key of another owner (give --second-api-key, or a control plane that makes keys)',
  'webhook-receiver':
    'a webhook receiver the target can reach (the suite runs one on loopback; only the in-process emulator is known to reach it)',
  destructive:
    'permission to write through the API: send, upload, modify and delete email (give --destructive)',
};

/** The run profiles of `--profile` (see profiles.ts for what each selects). */
export type ProfileName = 'full' | 'quick' | 'certify' | 'read-only';

export type TargetConfig =
  | { kind: 'emulator' }
  | {
      kind: 'live';
      /** The full versioned endpoint, `{base_url}` of §1, ending in /openapi/v1. */
      baseUrl: string;
      apiKey: string;
      /** A key of another owner, for checks that need two owners (§2.1). */
      secondApiKey?: string;
      /** Mailboxes the suite may use; it sends mail to no other address (client.ts). */
      mailboxes: string[];
      destructive: boolean;
      /** A control plane like the emulator's (/_mailtwin/v1), when the deployment offers one. */
      control?: { baseUrl: string; token: string };
    };

export interface RunConfig {
  target: TargetConfig;
  seed: number;
  numRuns: number;
  /** Which checks run; a check the profile leaves out is skipped with the profile's reason. */
  profile: ProfileName;
  /**
   * Requests per second one worker may send (the `--max-rps` budget divided among the
   * workers, so the whole run stays within it); null for no limit.
   */
  workerMaxRps: number | null;
  /** How long one request may take, answer body included, before its check fails. */
  requestTimeoutMs: number;
  /**
   * Where a failure's replay saves the bytes it sends (`--report-dir`/replay-files): `dir`
   * absolute, `shown` as the printed command names it. Unset: the system's temporary folder.
   */
  replayFiles?: { dir: string; shown: string };
}

export const RUN_CONFIG_ENV = 'MAILTWIN_CONFORMANCE_CONFIG';

export function encodeRunConfig(config: RunConfig): string {
  return JSON.stringify(config);
}

/** The run configuration in a worker; defaults to the in-process emulator with a fixed seed. */
export function readRunConfig(env: NodeJS.ProcessEnv = process.env): RunConfig {
  const defaults: RunConfig = {
    target: { kind: 'emulator' },
    seed: 1,
    numRuns: 50,
    profile: 'full',
    workerMaxRps: null,
    requestTimeoutMs: 20_000,
  };
  const raw = env[RUN_CONFIG_ENV];
  if (raw === undefined || raw === '') return defaults;
  return { ...defaults, ...(JSON.parse(raw) as Partial<RunConfig>) };
}
