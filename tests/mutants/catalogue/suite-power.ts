/**
 * Named mutants of issue 16 ("suite power, second round"): one for each statement the suite
 * checked only weakly, caught by the check that now covers it.
 */
import type { NamedMutant } from '../named-mutant.ts';

const EVERY_OPERATION =
  'refuses every operation without the Bearer header, with an unknown key, or with the key only in the body or a cookie';
const METHOD_NOT_ALLOWED =
  'answers a method the endpoint table does not list with 405 method_not_allowed and an Allow header naming the ones it does';
const ONLY_UNDER_BASE =
  'serves the API only under {base_url}: {origin}/mailboxes is not the mailbox list, and {base_url}/webhooks does not exist';
const REQUIRED_FIELDS =
  'requires from, to and subject: leaving out any one, or all three, is refused with missing_field naming it, storing nothing';
const FORWARD_UNKNOWN =
  'refuses to forward an email that does not exist with 404 email_not_found, sending and storing nothing';

const ONE_DOMAIN_WEBHOOK =
  "keeps a one-domain webhook to its domain: mail reaching the owner's mailbox in another domain is not delivered to it";
const WEBHOOK_RETRIES =
  'retries a delivery answered 500, redirected or too late, exactly on the schedule, until a 2xx, every attempt a POST of the same email and webhook IDs';
const WEBHOOK_URLS = 'refuses webhook endpoints that are not public http(s) URLs';
const FAILED_TEST =
  'reports a Send test that the endpoint does not answer with a 2xx as failed, with its status, and one it accepts as succeeded';
const SHOWN_ONCE =
  "shows a key's secret and a webhook's signing secret once, in the answer that creates it, and in no later view";

const AUTH = 'emulator/src/http/auth.ts';
const APP = 'emulator/src/app.ts';
const SPEC = 'spec/openapi.yaml';
const SENDING_ROUTES = 'emulator/src/routes/sending.ts';
const DISPATCHER = 'emulator/src/webhooks/dispatcher.ts';
const GUARD = 'emulator/src/webhooks/endpoint-guard.ts';

export const SUITE_POWER: readonly NamedMutant[] = [
  // --- §5: the key only in the Authorization header, on every operation ---
  {
    id: 'M-240',
    rule: '5-R2',
    bug: 'a key sent in an api_key cookie is read as if it were the Bearer header',
    file: AUTH,
    find: "const header = c.req.header('authorization');",
    replace:
      "const header = c.req.header('authorization') ?? c.req.header('cookie')?.replace(/^(?:.*; )?api_key=([^;]+).*$/, 'Bearer $1');",
    caughtBy: EVERY_OPERATION,
  },
  {
    id: 'M-241',
    rule: '5-R1',
    bug: 'a download by attachment id is let through without a key (only the other operations ask for one)',
    file: AUTH,
    find: '    if (bearer === undefined) {',
    replace: '    if (bearer === undefined && !/\\/attachments\\/[^/]+$/.test(c.req.path)) {',
    caughtBy: EVERY_OPERATION,
  },
  // --- D-12: 405 with Allow for a method the table does not list ---
  {
    id: 'M-242',
    rule: 'D-12',
    bug: 'a method a known path does not have is answered 404 not_found, like an unknown path',
    file: APP,
    find: 'if (allow.length > 0 && !allow.includes(c.req.method)) {',
    replace: 'if (allow.length > 0 && !allow.includes(c.req.method) && false) {',
    caughtBy: METHOD_NOT_ALLOWED,
  },
  {
    id: 'M-243',
    rule: 'D-12',
    bug: "the Allow header of a 405 names only the path's first method",
    file: APP,
    find: "{ Allow: allow.join(', ') },",
    replace: "{ Allow: allow[0] ?? '' },",
    caughtBy: METHOD_NOT_ALLOWED,
  },
  // --- §5 rule 5, §9, §1: the API under {base_url} only, no webhook endpoints ---
  {
    id: 'M-244',
    rule: '5-R5',
    bug: 'the mailbox list is also served at {origin}/mailboxes, outside the versioned prefix',
    file: APP,
    find: "  app.route('/openapi/v1', api);",
    replace:
      "  app.route('/openapi/v1', api);\n  app.use('/mailboxes', requireApiKey(deps.store));\n  app.route('/mailboxes', mailboxRoutes());",
    caughtBy: ONLY_UNDER_BASE,
  },
  {
    id: 'M-245',
    rule: '1-R2',
    bug: 'the API lists webhooks at {base_url}/webhooks',
    file: APP,
    find: "  api.route('/attachments', attachmentRoutes(services.uploads));",
    replace:
      "  api.route('/attachments', attachmentRoutes(services.uploads));\n  api.get('/webhooks', (c) => c.json([]));",
    caughtBy: ONLY_UNDER_BASE,
  },
  // --- §4.3: from, to and subject required, every time ---
  {
    id: 'M-246',
    rule: '4.3-R9',
    bug: 'subject is optional in the send body, so a send without one is not refused as missing_field',
    file: SPEC,
    find: 'required: [from, to, subject]',
    replace: 'required: [from, to]',
    caughtBy: REQUIRED_FIELDS,
  },
  // --- §1, §4.8: forwarding needs an existing email ---
  {
    id: 'M-247',
    rule: '1-R5',
    bug: 'forward looks the email up without checking it exists (or that the key may touch it)',
    file: SENDING_ROUTES,
    find: `  app.post('/:emailId/forward', async (c) => {
    const original = emailInScope(c, store);`,
    replace: `  app.post('/:emailId/forward', async (c) => {
    const original = store.emails.get(c.req.param('emailId'))!;`,
    caughtBy: FORWARD_UNKNOWN,
  },
  // --- §2.5: a one-domain webhook sees one domain of its owner ---
  {
    id: 'M-248',
    rule: '2.5-R2',
    bug: 'a one-domain webhook is delivered mail of every mailbox of its owner, as if it followed the owner',
    file: DISPATCHER,
    find: 'return mailboxesKeyMayTouch(webhook, this.store.directory.grantedMailboxes(owner.id)).has(',
    replace:
      "return mailboxesKeyMayTouch(webhook.scope === 'one-domain' ? { ...webhook, scope: 'follow-owner' as const } : webhook, this.store.directory.grantedMailboxes(owner.id)).has(",
    caughtBy: ONE_DOMAIN_WEBHOOK,
  },
  // --- §6.2, §6.4: every attempt a POST of the same email and webhook ---
  {
    id: 'M-249',
    rule: '6.4-R2',
    bug: 'a retry carries a new email id, so a receiver deduplicating by email ID and webhook ID processes it twice',
    file: DISPATCHER,
    find: 'const { outcome, exchange } = await this.post(webhook, delivery.event, delivery.data, at);',
    replace:
      'const { outcome, exchange } = await this.post(webhook, delivery.event, delivery.attempts === 0 ? delivery.data : { ...(delivery.data as object), id: this.ids.emailId(at) }, at);',
    caughtBy: WEBHOOK_RETRIES,
  },
  {
    id: 'M-250',
    rule: '6.2-R1',
    bug: 'deliveries are sent as PUT instead of POST',
    file: 'emulator/src/webhooks/connector.ts',
    find: "      method: 'POST',",
    replace: "      method: 'PUT',",
    caughtBy: WEBHOOK_RETRIES,
  },
  // --- §2.5: local addresses refused, with no loopback exception ---
  {
    id: 'M-251',
    rule: '2.5-R1',
    bug: 'loopback addresses count as public webhook targets (127.0.0.1, ::1 accepted)',
    file: GUARD,
    find: "return c.range === 'unicast' || (options.allowLoopback && c.range === 'loopback');",
    replace: "return c.range === 'unicast' || c.range === 'loopback';",
    caughtBy: WEBHOOK_URLS,
  },
  {
    id: 'M-252',
    rule: '2.5-R1',
    bug: 'localhost names are accepted as webhook hosts, as if --allow-loopback-webhooks were always on',
    file: GUARD,
    find: '  if (options.allowLoopback && isLocalhostName(name)) return;',
    replace: '  if (isLocalhostName(name)) return;',
    caughtBy: WEBHOOK_URLS,
  },
  // --- §6.1: a failed Send test is shown as failed ---
  {
    id: 'M-253',
    rule: '6.1-R2',
    bug: 'the Send test reports success whatever the endpoint answered',
    file: DISPATCHER,
    find: `    this.publishAttempt(webhook.id, id, 'webhook.test', 1, outcome, exchange);
    return outcome;`,
    replace: `    this.publishAttempt(webhook.id, id, 'webhook.test', 1, outcome, exchange);
    return { ...outcome, ok: true };`,
    caughtBy: FAILED_TEST,
  },
  // --- §2.1, §2.5: secrets shown once ---
  {
    id: 'M-254',
    rule: '2.1-R2',
    bug: "the dashboard's key list shows each key's secret again",
    file: 'emulator/src/routes/control/keys.ts',
    find: `  app.get('/', (c) => c.json(directory.keys().map(keyView)));

  app.post('/', async (c) => {
    const body = await readControlBody<CreateKeyBody>(c, 'CreateKeyRequest');
    const { key, secret } = directory.createKey(body);`,
    replace: `  const shown = new Map<string, string>();
  app.get('/', (c) => c.json(directory.keys().map((k) => ({ ...keyView(k), secret: shown.get(k.id) }))));

  app.post('/', async (c) => {
    const body = await readControlBody<CreateKeyBody>(c, 'CreateKeyRequest');
    const { key, secret } = directory.createKey(body);
    shown.set(key.id, secret);`,
    caughtBy: SHOWN_ONCE,
  },
  {
    id: 'M-255',
    rule: '2.5-R3',
    bug: "a webhook's record in the dashboard shows its signing secret again",
    file: 'emulator/src/routes/control/webhooks.ts',
    find: "  app.get('/:webhookId', (c) => c.json(view(webhooks.get(c.req.param('webhookId')))));",
    replace:
      "  app.get('/:webhookId', (c) => c.json({ ...view(webhooks.get(c.req.param('webhookId'))), secret: (webhooks as unknown as { store: { webhooks: { secretOf(id: string): string } } }).store.webhooks.secretOf(c.req.param('webhookId')) }));",
    caughtBy: SHOWN_ONCE,
  },
];
