import type { KeyRole, Need, TargetConfig } from '../run/config.ts';

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
  /**
   * The public host name the in-process emulator reaches the suite's loopback receiver by: it
   * refuses local webhook addresses as a deployment does (§2.5), and its injected resolver and
   * connector lead this one name to this machine. Unset: a receiver's URL is used as it is.
   */
  readonly receiverHost?: string;
  /** How long the target waits for a webhook receiver, when known (D-30 says 10 s). */
  readonly webhookTimeoutMs?: number;
  /** What this target offers among the needs checks may declare. */
  readonly offers: ReadonlySet<Need>;
  fetch(request: Request): Promise<Response>;
}
