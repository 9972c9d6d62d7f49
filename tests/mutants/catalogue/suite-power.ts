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

const MANY_FILES =
  "downloads every file of a many-file message by its own attachment id, byte for byte: sent and received copies, a reply and a forward reusing used uploads, and a forward carrying the original's files";
const STORED_ONCE =
  "stores an upload's file once: sends, replies and forwards reusing it add no stored file and no byte";
const REPLY_FORWARD_LIMITS =
  "holds replies and forwards to 20 files, 3 MiB of raw attachment data and a 5 MiB message, a forward counting the original's files it carries";
const URL_IN_BODY =
  'takes a file too large to attach in the body as its url: the message is sent, and the url in the received copy serves the file without a key';
const NO_EXPIRY =
  "keeps an upload's public url and its id working more than a year later: nothing expires them";
const LISTED_TWICE =
  'attaches an upload listed twice as two attachments with ids of their own, counted twice toward 20 files and 3 MiB';
const SUBJECT_FILLED_IN =
  'holds the subject to 998 characters once variables are filled in: 998 accepted, 999 refused with subject_too_long, on send and forward';
const NARROWED_SCOPE =
  "answers a narrowed key's reply, forward and download of its owner's mail outside its scope like missing ones, and refuses a from outside it";

const AUTH = 'emulator/src/http/auth.ts';
const APP = 'emulator/src/app.ts';
const SPEC = 'spec/openapi.yaml';
const SENDING_ROUTES = 'emulator/src/routes/sending.ts';
const DISPATCHER = 'emulator/src/webhook-delivery/dispatcher.ts';
const GUARD = 'emulator/src/webhook-delivery/endpoint-guard.ts';
const SEND_SERVICE = 'emulator/src/services/send-service.ts';
const UPLOADS = 'emulator/src/services/upload-service.ts';

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
    // Passed on to the versioned endpoint, so it speaks the deployment's binding there too (a
    // route of its own outside /openapi/v1 would answer in the default's names under any binding,
    // and the check, which compares it byte for byte with {base_url}/mailboxes, would not see it).
    replace:
      "  app.route('/openapi/v1', api);\n  app.get('/mailboxes', (c) => app.fetch(new Request(new URL('/openapi/v1/mailboxes', c.req.url), c.req.raw), c.env));",
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
    rule: '6.4-R3',
    bug: 'a retry carries a new email id, so a receiver deduplicating by email ID and webhook ID processes it twice',
    file: DISPATCHER,
    find: 'const { outcome, exchange } = await this.post(webhook, delivery.event, data, at);',
    replace:
      'const { outcome, exchange } = await this.post(webhook, delivery.event, delivery.attempts === 0 ? data : [Buffer.from(JSON.stringify({ ...(JSON.parse(Buffer.concat(data).toString()) as object), id: this.ids.emailId(at) }))], at);',
    caughtBy: WEBHOOK_RETRIES,
  },
  {
    id: 'M-250',
    rule: '6.2-R1',
    bug: 'deliveries are sent as PUT instead of POST',
    file: 'emulator/src/webhook-delivery/connector.ts',
    within: 'httpConnector',
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
  // --- §2.4, §4.10: every file of a message downloads as itself ---
  {
    id: 'M-256',
    rule: '4.10-R1',
    bug: "a message attachment id downloads the message's first file, whichever file it names",
    file: 'emulator/src/store/email-store.ts',
    find: '         WHERE a.id = ?`,',
    replace:
      '         WHERE a.email_id = (SELECT email_id FROM message_attachments WHERE id = ?) ORDER BY a.position LIMIT 1`,',
    caughtBy: MANY_FILES,
  },
  {
    id: 'M-257',
    rule: '4.7-R3',
    bug: 'a reply attaches only the first of its attachmentIds',
    file: SEND_SERVICE,
    find: `        ...replyThreading(original),
        attachments: this.uploads(access, request.attachmentIds),`,
    replace: `        ...replyThreading(original),
        attachments: this.uploads(access, request.attachmentIds).slice(0, 1),`,
    caughtBy: MANY_FILES,
  },
  {
    id: 'M-258',
    rule: '4.8-R2',
    bug: "a forward without attachmentIds carries only the original's first file",
    file: SEND_SERVICE,
    find: '            ? this.originalAttachments(original)',
    replace: '            ? this.originalAttachments(original).slice(0, 1)',
    caughtBy: MANY_FILES,
  },
  // --- §2.4: reuse copies no file ---
  {
    id: 'M-259',
    rule: '2.4-R4',
    bug: 'every attachment stores a copy of its file (files keyed by a fresh key, not by their content)',
    file: 'emulator/src/store/blob-store.ts',
    find: "const sha256 = createHash('sha256').update(bytes).digest('hex');",
    replace:
      "const sha256 = createHash('sha256').update(bytes).update(String(Math.random())).digest('hex');",
    caughtBy: STORED_ONCE,
  },
  // --- §8: the limits of reply and forward ---
  {
    id: 'M-260',
    rule: 'D-63',
    bug: "the 20-file count is left to the request's attachmentIds (whose schema holds them to 20) on reply and forward, so a forward carrying the original's 21 files is sent",
    file: SEND_SERVICE,
    find: 'if (draft.attachments.length > MAX_ATTACHMENTS) {',
    replace: "if (draft.attachments.length > MAX_ATTACHMENTS && draft.operation === 'send') {",
    caughtBy: REPLY_FORWARD_LIMITS,
  },
  {
    id: 'M-261',
    rule: '8-R5',
    bug: 'the 3 MiB limit is enforced on send only, not on reply and forward',
    file: SEND_SERVICE,
    find: 'if (bytes > MAX_ATTACHMENT_BYTES) {',
    replace: "if (bytes > MAX_ATTACHMENT_BYTES && draft.operation === 'send') {",
    caughtBy: REPLY_FORWARD_LIMITS,
  },
  {
    id: 'M-262',
    rule: '8-R6',
    bug: 'the 5 MiB encoded-message limit is enforced on send only, not on reply and forward',
    file: SEND_SERVICE,
    find: 'maxBytes: MAX_MESSAGE_BYTES,',
    replace: "maxBytes: draft.operation === 'send' ? MAX_MESSAGE_BYTES : Infinity,",
    caughtBy: REPLY_FORWARD_LIMITS,
  },
  {
    id: 'M-263',
    rule: 'D-63',
    bug: "a forward reusing the original skips the attachment limits, so the original's files are not counted",
    file: SEND_SERVICE,
    find: '  private checkAttachmentLimits(draft: Draft): void {',
    replace: `  private checkAttachmentLimits(draft: Draft): void {
    if (draft.operation === 'forward' && draft.body.kind === 'original') return;`,
    caughtBy: REPLY_FORWARD_LIMITS,
  },
  // --- §8, §2.4: the url in the body, never expiring ---
  {
    id: 'M-264',
    rule: '8-R9',
    bug: 'the public content path serves only files small enough to attach (3 MiB), so a url put in the body leads nowhere',
    file: UPLOADS,
    find: 'const found = this.store.uploads.byToken(token);',
    replace:
      'const found = [this.store.uploads.byToken(token)].find((f) => f !== undefined && f.bytes.length <= 3 * 1024 * 1024);',
    caughtBy: URL_IN_BODY,
  },
  {
    id: 'M-265',
    rule: '2.4-R3',
    bug: 'public urls expire 30 days after the upload',
    file: UPLOADS,
    find: 'const found = this.store.uploads.byToken(token);',
    replace:
      'const found = [this.store.uploads.byToken(token)].find((f) => f !== undefined && this.clock.now().getTime() - Date.parse(f.upload.createdAt) < 30 * 86_400_000);',
    caughtBy: NO_EXPIRY,
  },
  // --- D-64, D-65: decided points ---
  {
    id: 'M-266',
    rule: 'D-64',
    bug: 'an upload id listed twice is attached once (and counted once)',
    file: UPLOADS,
    find: 'return ids.map((id, i) => {',
    replace: 'return [...new Set(ids)].map((id, i) => {',
    caughtBy: LISTED_TWICE,
  },
  {
    id: 'M-267',
    rule: 'D-65',
    bug: 'the 998-character limit is checked on the subject as written only, not once variables are filled in',
    file: SEND_SERVICE,
    find: 'if ([...subject].length > 998)',
    replace: "if ([...subject].length > 998 && !('template' in draft.subject))",
    caughtBy: SUBJECT_FILLED_IN,
  },
  // --- §5 rule 3: a narrowed key on its owner's mail outside its scope ---
  {
    id: 'M-268',
    rule: '5-R3',
    bug: "reply finds the email by id without checking that the key's scope reaches its mailbox",
    file: SENDING_ROUTES,
    find: `  app.post('/:emailId/reply', async (c) => {
    const original = emailInScope(c, store);`,
    replace: `  app.post('/:emailId/reply', async (c) => {
    const original = store.emails.get(c.req.param('emailId')) ?? emailInScope(c, store);`,
    caughtBy: NARROWED_SCOPE,
  },
  {
    id: 'M-269',
    rule: '5-R3',
    bug: 'forward looks the email up without checking that the key may touch it',
    file: SENDING_ROUTES,
    find: `  app.post('/:emailId/forward', async (c) => {
    const original = emailInScope(c, store);`,
    replace: `  app.post('/:emailId/forward', async (c) => {
    const original = store.emails.get(c.req.param('emailId'))!;`,
    caughtBy: NARROWED_SCOPE,
  },
  {
    id: 'M-270',
    rule: '5-R3',
    bug: 'a message attachment downloads for any key, whatever mailbox its message is in',
    file: UPLOADS,
    find: 'if (attached !== undefined && access.mailboxes.has(attached.mailbox)) {',
    replace: 'if (attached !== undefined) {',
    caughtBy: NARROWED_SCOPE,
  },
  {
    id: 'M-271',
    rule: '5-R3',
    bug: "send accepts any of the owner's mailboxes as from, ignoring the key's narrower scope",
    file: SEND_SERVICE,
    find: 'const mailbox = access.mailboxes.get(from.address);',
    replace:
      'const mailbox = access.mailboxes.get(from.address) ?? this.store.directory.grantedMailboxes(access.owner.id).find((m) => m.address === from.address);',
    caughtBy: NARROWED_SCOPE,
  },
];
