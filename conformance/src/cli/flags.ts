import { DEFAULT_DELIVERY_TIMEOUT_MS } from '../run/config.ts';
import { PROFILES, PROFILE_NAMES } from '../run/profiles.ts';
import { HELP_FLAG, helpOptions, wrap, type Flag } from '../../../shared/flag-table.ts';

export const REPORT_FORMATS = ['console', 'junit', 'json', 'html', 'certificate'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** How long one request may go unanswered (`--request-timeout`), headers and body included. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 20_000;

/** Requests per second against a live target unless `--max-rps` says otherwise. */
export const LIVE_DEFAULT_MAX_RPS = 20;

const TARGET = 'Target';
const BINDING =
  'Binding (the names a deployment chose where the service document says "not shown")';
const RUN = 'Run';
const REPORTS = 'Reports';

/**
 * Every flag of `mailtwin-conformance`, written once: the parser, `--help` and the table of
 * docs/suite-options.md are made from it (flag-table.ts).
 */
export const CONFORMANCE_FLAGS = [
  {
    name: 'base-url',
    type: 'string',
    value: '<url>',
    unset: 'the in-process emulator',
    description:
      "The deployment's full versioned endpoint ({base_url}, ending in /openapi/v1), e.g. https://mail.example.com/openapi/v1",
    group: TARGET,
  },
  {
    name: 'unversioned-base-url',
    type: 'boolean',
    description:
      'Accept a --base-url not ending in /openapi/v1: for a proxy such as Prism that serves the API at its root',
    group: TARGET,
  },
  {
    name: 'api-key',
    type: 'string',
    value: '<key>',
    unset: '$MAILTWIN_API_KEY',
    description: 'An API key of that deployment; needed with --base-url',
    group: TARGET,
  },
  {
    name: 'second-api-key',
    type: 'string',
    value: '<key>',
    unset: '$MAILTWIN_SECOND_API_KEY',
    description:
      'A key of another owner, for checks that need two; the same as --key other-owner=<key>',
    group: TARGET,
  },
  {
    name: 'key',
    type: 'string[]',
    value: '<role>=<key>',
    description:
      "A key made in the deployment's dashboard, by role (repeatable): follow-owner (as --api-key), one-domain, selected-mailbox, other-owner (a key of another owner), disabled (a disabled key), disabled-owner (a key of a disabled owner). Preflight asks each: the first four must answer GET /mailboxes 200, the last two must be refused; the authorization checks use every key given",
    group: TARGET,
  },
  {
    name: 'suppressed',
    type: 'string[]',
    value: '<address>',
    description: "An address on the deployment's suppression list (repeatable); offers suppressed",
    group: TARGET,
  },
  {
    name: 'mailbox',
    type: 'string[]',
    value: '<address>',
    description:
      'A mailbox the suite may use (repeatable); it sends mail to no other address than these and its own *.conformance.test addresses',
    group: TARGET,
  },
  {
    name: 'destructive',
    type: 'boolean',
    description:
      'Allow checks that write through the API (send, upload, modify, delete); offers the need destructive',
    group: TARGET,
  },
  {
    name: 'control-url',
    type: 'string',
    value: '<url>',
    description:
      "A control plane like the emulator's (ending in /_mailtwin/v1): the control world, offering every need but webhook-receiver and destructive, so checks set up their own owners, mailboxes, keys and mail",
    group: TARGET,
  },
  {
    name: 'control-token',
    type: 'string',
    value: '<token>',
    unset: '$MAILTWIN_CONTROL_TOKEN',
    description: "The control plane's bearer token",
    group: TARGET,
  },
  {
    name: 'webhook-listen',
    type: 'string',
    value: '<host:port>',
    description: "Where the suite's webhook receiver listens, e.g. 127.0.0.1:8787",
    group: TARGET,
  },
  {
    name: 'webhook-public-url',
    type: 'string',
    value: '<url>',
    description:
      "The URL the deployment's webhook (made in its dashboard) points at, which reaches --webhook-listen (through a tunnel, for one)",
    group: TARGET,
  },
  {
    name: 'webhook-secret',
    type: 'string',
    value: '<whsec_…>',
    unset: '$MAILTWIN_WEBHOOK_SECRET',
    description:
      "That webhook's signing secret; the three --webhook-* flags together offer webhook-receiver",
    group: TARGET,
  },
  {
    name: 'webhook-id',
    type: 'string',
    value: '<id>',
    description: "That webhook's id, to check the X-Service-Webhook-Id header",
    group: TARGET,
  },
  {
    name: 'delivery-timeout',
    type: 'string',
    value: '<ms>',
    default: String(DEFAULT_DELIVERY_TIMEOUT_MS),
    description:
      'How long mail the suite sends may take to arrive in a --mailbox, and a webhook delivery to reach the receiver',
    group: TARGET,
  },
  {
    name: 'max-rps',
    type: 'string',
    value: '<n>',
    unset: `${LIVE_DEFAULT_MAX_RPS} with --base-url, else no limit`,
    description: 'At most n requests per second over the whole run; 0 for no limit',
    group: TARGET,
  },
  {
    name: 'request-timeout',
    type: 'string',
    value: '<ms>',
    default: String(DEFAULT_REQUEST_TIMEOUT_MS),
    description:
      'How long one request may go unanswered, body included; then its check fails naming the request (a property stops at the case that hung, without shrinking)',
    group: TARGET,
  },
  {
    name: 'binding',
    type: 'string',
    value: '<file>',
    unset: "inferred from the target's {origin}/openapi/openapi.json, else spec/DECISIONS.md's",
    description: 'Check the target through this binding (spec/binding.schema.json)',
    group: BINDING,
  },
  {
    name: 'print-binding',
    type: 'boolean',
    description: 'Print the binding the run would use, each entry with its source, and exit',
    group: BINDING,
  },
  {
    name: 'emulator-binding',
    type: 'string',
    value: '<file>',
    description:
      'Without --base-url: the in-process emulator speaks this binding (mailtwin serve --binding), and the suite infers it back from what it publishes',
    group: BINDING,
  },
  {
    name: 'profile',
    type: 'string',
    value: '<name>',
    default: 'full',
    description: `Which checks run and how strictly: ${PROFILE_NAMES.join(', ')} (docs/profiles.md)`,
    group: RUN,
  },
  {
    name: 'seed',
    type: 'string',
    value: '<n>',
    unset: 'random, printed',
    description: 'Seed of every generated case; the same seed replays the run',
    group: RUN,
  },
  {
    name: 'num-runs',
    type: 'string',
    value: '<n>',
    default: String(PROFILES.full.numRuns),
    defaultNote: `${PROFILES.quick.numRuns} with --profile quick`,
    description: 'Cases per property',
    group: RUN,
  },
  {
    name: 'filter',
    type: 'string',
    value: '<text>',
    unset: 'all checks',
    description: 'Only checks whose name contains the text (the others are reported as skipped)',
    group: RUN,
  },
  {
    name: 'strict',
    type: 'boolean',
    description:
      'Failed decided rules (spec/DECISIONS.md) fail the run instead of warning, in process as against --base-url',
    group: RUN,
  },
  {
    name: 'shard',
    type: 'string',
    value: '<i>/<n>',
    unset: 'all files',
    description: "Run the i-th of n shares of the check files (vitest's --shard), e.g. 2/4",
    group: RUN,
  },
  {
    name: 'dry-run',
    type: 'boolean',
    description:
      'List every check (file, behaviour, rule ids, needs) and whether it would run or be skipped here and why; sends no request',
    group: RUN,
  },
  {
    name: 'report',
    type: 'string',
    value: '<list>',
    default: 'console',
    description: `Comma list of ${REPORT_FORMATS.join(', ')}; certificate writes certificate.json and certificate.html: target, suite, SHA-256 of the spec, seed, every rule's status and reason, the command that re-runs it (secrets as placeholders) and a SHA-256 of it all`,
    group: REPORTS,
  },
  {
    name: 'report-dir',
    type: 'string',
    value: '<dir>',
    default: 'conformance-report',
    description:
      "Where junit.xml, report.json, report.html and the certificate are written, and the bytes a failure's curl -F replay reads (replay-files/)",
    group: REPORTS,
  },
  {
    name: 'quiet',
    type: 'boolean',
    description: 'No progress line per check on stderr (by default one as each check ends)',
    group: REPORTS,
  },
  HELP_FLAG,
] as const satisfies readonly Flag[];

export const CONFORMANCE_HELP = `Usage: mailtwin-conformance [options]

Checks a deployment of the Email Service API against its contract (spec/openapi.yaml) and the
rules of the service document (conformance/rules.yaml), and prints pass / fail / skip per rule.
Without --base-url it checks the mailtwin emulator, started in this process.

${helpOptions(CONFORMANCE_FLAGS)}
Profiles (--profile):
${PROFILE_NAMES.map((name) =>
  wrap(PROFILES[name].description, 86)
    .map((line, i) => `  ${(i === 0 ? name : '').padEnd(10)} ${line}`)
    .join('\n'),
).join('\n')}

Each failure is charged to the rule its failing assertion checks; the check's other rules are
not failed by it. Exit status: 0 every checked documented rule passed (decided rules may have
warned), 1 a rule failed (or, with --profile certify, a check was skipped for anything but
what only a control plane gives, or a rule left unverified), 2 bad configuration.
`;
