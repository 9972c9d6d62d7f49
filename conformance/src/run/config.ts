import type { ResolvedBinding } from '../binding/binding.ts';

/**
 * What the suite runs against and how, handed from the `mailtwin-conformance` process to the
 * vitest workers through one environment variable (workers inherit the environment).
 */

/** Something a check may need that not every target offers; a check lacking one is skipped. */
/**
 * What a check needs from its target, each a capability one of two worlds gives (world.ts):
 * the control world (the emulator, or any target offering its control plane) gives them all;
 * the API world (any deployment: its API, keys made in its dashboard, the suite's flags) gives
 * what the API and the flags can.
 */
export type Need =
  | 'mail'
  | 'crafted-mail'
  | 'second-key'
  | 'scoped-keys'
  | 'disabled-keys'
  | 'suppressed'
  | 'provisioning'
  | 'sent-message'
  | 'clock'
  | 'faults'
  | 'webhook-receiver'
  | 'webhook-config'
  | 'destructive';

export const NEEDS: readonly Need[] = [
  'mail',
  'crafted-mail',
  'second-key',
  'scoped-keys',
  'disabled-keys',
  'suppressed',
  'provisioning',
  'sent-message',
  'clock',
  'faults',
  'webhook-receiver',
  'webhook-config',
  'destructive',
];

export const NEED_DESCRIPTIONS: Record<Need, string> = {
  mail: 'mail in a mailbox: injected by a control plane, or sent to the --mailbox addresses and awaited (give --destructive)',
  'crafted-mail':
    'mail with chosen times, folders, flags, senders or headers, which only a control plane can place (the API sends mail as it is, at the time it is)',
  'second-key':
    'a key of another owner (give --key other-owner=<secret> or --second-api-key, or a control plane)',
  'scoped-keys':
    'keys of the one-domain and selected-mailbox scopes (give --key one-domain=<secret> --key selected-mailbox=<secret>, or a control plane)',
  'disabled-keys':
    'a disabled key and a key of a disabled owner (give --key disabled=<secret> --key disabled-owner=<secret>, or a control plane)',
  suppressed:
    'an address on the suppression list (give --suppressed <address>, or a control plane)',
  provisioning:
    'owners, mailboxes, grants and keys made and changed on demand, which only a control plane can do (the dashboard does it by hand)',
  'sent-message':
    "the raw message as it left for an outside recipient, which only a control plane shows (the emulator's outbox)",
  clock: 'a clock the suite can move, which only a control plane offers',
  faults: 'faults injected on demand (a 504 after the send), which only a control plane offers',
  'webhook-receiver':
    'a webhook receiver the target delivers to (the suite runs one; give --webhook-listen, --webhook-public-url and --webhook-secret for a live target)',
  'webhook-config':
    'webhooks made, failed and inspected on demand (retries, pausing, deliveries), which only a control plane offers',
  destructive:
    'permission to write through the API: send, upload, modify and delete email (give --destructive)',
};

/**
 * Needs only a control plane (the test harness) can meet: the API has no way to give them. A
 * certifying run of an API world lists the rules they leave unchecked as "needs the harness"
 * instead of failing on them.
 */
export const HARNESS_NEEDS: ReadonlySet<Need> = new Set<Need>([
  'crafted-mail',
  'provisioning',
  'sent-message',
  'clock',
  'faults',
  'webhook-config',
]);

/** How long sent mail may take to arrive (`--delivery-timeout`): §4.3 says nothing of it. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 60_000;

/** The roles of `--key <role>=<secret>`: what each key is, in the deployment's dashboard. */
export const KEY_ROLES = [
  'follow-owner',
  'one-domain',
  'selected-mailbox',
  'other-owner',
  'disabled',
  'disabled-owner',
] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/** The run profiles of `--profile` (see profiles.ts for what each selects). */
export type ProfileName = 'full' | 'quick' | 'certify' | 'read-only';

export type TargetConfig =
  | {
      kind: 'emulator';
      /** A binding file the in-process emulator speaks (`--emulator-binding`). */
      binding?: string;
    }
  | {
      kind: 'live';
      /** The full versioned endpoint, `{base_url}` of §1, ending in /openapi/v1. */
      baseUrl: string;
      /** The key the suite works with: `--api-key`, or `--key follow-owner=`. */
      apiKey: string;
      /** A key of another owner, for checks that need two owners (§2.1). */
      secondApiKey?: string;
      /** Every key given, by role (`--api-key` is follow-owner, `--second-api-key` other-owner). */
      keys?: Partial<Record<KeyRole, string>>;
      /** Addresses the deployment has on its suppression list (`--suppressed`). */
      suppressed?: string[];
      /** The receiver a webhook made in the deployment's dashboard points at (`--webhook-*`). */
      webhook?: {
        listen: { host: string; port: number };
        publicUrl: string;
        secret: string;
        id?: string;
      };
      /** How long mail the suite sends may take to arrive before a check fails (`--delivery-timeout`). */
      deliveryTimeoutMs?: number;
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
  /**
   * The binding the run checks the target through (binding/target-binding.ts), and where the
   * target's published document is, when it is the decided layer. Unset: the default.
   */
  binding?: { resolved: ResolvedBinding; publishedUrl?: string };
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

/**
 * Checks that say they may run side by side (check-runner/check.ts, `concurrent`) run at most
 * this many at once (vitest's `maxConcurrency`): enough to await many deliveries at once, few
 * enough that a target's answers to one check are not held up behind the others'. The vendor
 * recipe at a 1.5 s delivery delay, quiet 2 cores: 93.7 s at 10, 84.1 s at 20, 79.7 s at 25
 * (as many as the stateful model's sequences).
 */
export const MAX_CONCURRENT_CHECKS = 25;

/**
 * Set to a number, how many checks, and cases of one check, run side by side at most instead
 * (1: one at a time, so one request at a time).
 */
export const CONCURRENCY_ENV = 'MAILTWIN_CONFORMANCE_CONCURRENCY';

/** The bound on checks run side by side: {@link CONCURRENCY_ENV}, else the default. */
export function maxConcurrentChecks(env: NodeJS.ProcessEnv = process.env): number {
  const asked = Number.parseInt(env[CONCURRENCY_ENV] ?? '', 10);
  return Number.isInteger(asked) && asked > 0 ? asked : MAX_CONCURRENT_CHECKS;
}
