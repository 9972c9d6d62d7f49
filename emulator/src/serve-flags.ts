import { DEFAULT_MAX_REQUEST_BYTES } from './http/request-body-limit.ts';
import { DEFAULT_SMTP_LIMITS } from './smtp/smtp-limits.ts';
import { HELP_FLAG, helpOptions, type Flag } from '../../shared/flag-table.ts';

/** Mailpit's and many a test tool's SMTP port: unprivileged, and not 25 or 587. */
export const DEFAULT_SMTP_PORT = 2525;

/** D-30's default: a delivery attempt may take 10 s. */
const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Every flag of `mailtwin serve`, written once: the parser, `--help` and the table of
 * docs/serve.md are made from it (flag-table.ts); the names are a contract kept for every release.
 */
export const SERVE_FLAGS = [
  {
    name: 'port',
    type: 'string',
    value: '<n>',
    default: '4025',
    description: 'TCP port; 0 picks a free one, printed in the banner',
  },
  {
    name: 'host',
    type: 'string',
    value: '<addr>',
    default: '127.0.0.1',
    description:
      'Address to listen on. Any other than a loopback address lets other machines reach the emulator, its demo key and its control plane: the banner warns',
  },
  {
    name: 'allowed-hosts',
    type: 'string[]',
    value: '<names>',
    description:
      'Host names to answer besides localhost, *.localhost, IP addresses and --host (comma-separated or repeated; .example.test allows it and every name under it). Requests naming another Host get 403 host_not_allowed, so a web page cannot reach the emulator by DNS rebinding (D-66). all (or true) answers every Host, which is not safe while a browser runs on this machine (the banner warns)',
  },
  {
    name: 'db',
    type: 'string',
    value: '<path>',
    unset: 'in memory, lost on exit',
    description:
      'Keep the data in this SQLite file. A file that already holds data is used as is: the fixture loads only into an empty store. The file is held with an exclusive lock while the emulator runs (read it with sqlite3 after a stop)',
  },
  {
    name: 'ready-file',
    type: 'string',
    value: '<path>',
    unset: 'none',
    description:
      'Once the emulator answers, write this JSON file (atomically): origin, baseUrl, controlUrl, controlToken, smtpUrl and pid, so a CI step or another language can wait for the file and read the port --port 0 picked; removed when the emulator stops. GET /readyz answers 200 too',
  },
  {
    name: 'fixtures',
    type: 'string',
    value: '<path>',
    unset: 'the bundled fixtures/demo.json',
    description:
      'Fixture to load into an empty store (format: fixtures/fixture.schema.json; .eml paths relative to the file)',
  },
  {
    name: 'no-demo',
    type: 'boolean',
    description: 'Start empty: load no fixture',
  },
  {
    name: 'control-token',
    type: 'string',
    value: '<token>',
    unset: 'random',
    description:
      'Bearer token of the control plane /_mailtwin/v1, printed in the banner as MAILTWIN_CONTROL_TOKEN',
  },
  {
    name: 'allow-loopback-webhooks',
    type: 'boolean',
    unset: 'off; on in npm start',
    description:
      'Accept webhook targets on loopback addresses, for a receiver running on this machine',
  },
  {
    name: 'max-request-bytes',
    type: 'string',
    value: '<n>',
    default: String(DEFAULT_MAX_REQUEST_BYTES),
    defaultNote: '25 MiB',
    description:
      "The hosting platform's request size limit the emulator models (D-27); larger requests get 413 request_too_large",
  },
  {
    name: 'webhook-timeout-ms',
    type: 'string',
    value: '<n>',
    default: String(DEFAULT_WEBHOOK_TIMEOUT_MS),
    description: 'How long one webhook delivery attempt may take before it counts as failed (D-30)',
  },
  {
    name: 'rate-limit',
    type: 'string',
    value: '<n>/<window>',
    unset: 'no limit',
    description:
      'Allow each API key n requests in any sliding window, e.g. 100/1m, 10/1s, 5000/1h (window: whole s, m or h, 1s to 24h; n: 1 to 1000000). Beyond it the API answers 429 rate_limited with Retry-After (D-38)',
  },
  {
    name: 'delivery-delay-ms',
    type: 'string',
    value: '<n>',
    default: '0',
    defaultNote: 'at once',
    description:
      "Mail sent (send, reply, forward) to a mailbox of the emulator reaches it, and fires its email.received webhooks, n ms after the send answers, so clients rehearse polling (0 to 3600000). The sender's sent copy and the control plane's inbound mail are never delayed. Counted on the emulator's clock: moving it forward delivers what fell due. Mail still on its way when mailtwin stops is lost, even with --db",
  },
  {
    name: 'smtp-port',
    type: 'string',
    value: '<n>',
    default: String(DEFAULT_SMTP_PORT),
    defaultNote: 'a free one with --port 0',
    description:
      "Take mail for the emulator's mailboxes over SMTP on this port (0 picks a free one), printed as MAILTWIN_SMTP_URL. It arrives as the control plane's inbound mail does; an unknown recipient gets 550 5.1.1, a message over --max-request-bytes 552 (one sent without SIZE= is read to its end but not kept)",
  },
  {
    name: 'smtp-max-clients',
    type: 'string',
    value: '<n>',
    default: String(DEFAULT_SMTP_LIMITS.maxClients),
    description:
      'SMTP connections served at once (1 to 10000); one more is answered 421 and closed',
  },
  {
    name: 'smtp-data-timeout-ms',
    type: 'string',
    value: '<n>',
    default: String(DEFAULT_SMTP_LIMITS.dataTimeoutMs),
    description:
      'How long sending one message (DATA) may take before the connection gets 421 4.4.2 and is closed (1 to 86400000)',
  },
  {
    name: 'smtp-session-timeout-ms',
    type: 'string',
    value: '<n>',
    default: String(DEFAULT_SMTP_LIMITS.sessionTimeoutMs),
    description:
      'How long one SMTP connection may last, however busy, before it gets 421 4.4.2 and is closed (1 to 86400000)',
  },
  {
    name: 'no-smtp',
    type: 'boolean',
    description: 'Start no SMTP ingress',
  },
  {
    name: 'binding',
    type: 'string',
    value: '<file>',
    unset: "spec/DECISIONS.md's own names",
    description:
      "Speak a deployment's dialect (spec/binding.schema.json, YAML or JSON; entries not given are spec/bindings/decisions.yaml's): its list array, record and request field names, folder names, success statuses and answers, error statuses and codes, webhook data names, in requests, answers, /openapi/openapi.json and the docs. Rules and stored data are unchanged",
  },
  {
    name: 'contract',
    type: 'string',
    value: '<url or file>',
    description:
      "Infer the binding from a deployment's published OpenAPI document (e.g. https://mail.example.com/openapi/openapi.json; fetched with a 10 s time-out) and speak it; an ambiguous entry stops the start (exit 2) with its candidates: write a --binding file instead (mailtwin binding --from <url>)",
  },
  {
    name: 'log',
    type: 'string',
    value: '<text|json>',
    default: 'text',
    description:
      'After the banner, one line per API or control-plane request (method, path, status, ms, key name), per email delivered to a mailbox here and per webhook attempt (status, ms, signature): text, or JSON lines for tools',
  },
  {
    name: 'quiet',
    type: 'boolean',
    description: 'No request log: print the banner only',
  },
  {
    name: 'no-response-cache',
    type: 'boolean',
    description:
      "Compute every GET afresh instead of serving a repeated one's answer, kept until the next write, again (answers are the same; for measuring what the cache saves)",
  },
  HELP_FLAG,
] as const satisfies readonly Flag[];

export const SERVE_HELP = `Usage: mailtwin serve [options]

Starts the Email Service API emulator, loads the demo data into an empty store, and prints
the addresses to use, ending with KEY=value lines a script can read (MAILTWIN_BASE_URL,
MAILTWIN_API_KEY, MAILTWIN_CONTROL_URL, MAILTWIN_CONTROL_TOKEN).

${helpOptions(SERVE_FLAGS)}
Exit status: 2 on bad configuration (a bad flag, an unreadable or invalid fixture, a database
that cannot be opened, a port that cannot be listened on), with the reason on stderr.
`;
