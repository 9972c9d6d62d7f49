/** Named mutants caught by reply-forward and webhooks checks. */
import type { NamedMutant } from '../named-mutant.ts';

const REPLY_BASICS =
  'replies from the mailbox to the original sender only, with Re: and In-Reply-To/References threading, answering 201 with the sent copy';
const RE_ONCE =
  'adds Re: to the subject once: a subject already starting with Re: in any case is kept as it is';
const REPLY_ALL =
  'with replyAll adds every other original To and Cc address, each once, never the replying mailbox';
const REPLY_ALL_DEFAULT =
  'replies to the sender only unless replyAll is true, and then to every other To and Cc mailbox too, on mail the run sends itself';
const REPLY_OWN =
  'replies to the mailbox’s own sent message by writing to its recipients again, threaded on it';
const REPLY_ATTACHMENTS =
  'attaches uploads given as attachmentIds to a reply, and refuses an unknown one with 404 attachment_not_found';
const REPLY_BODY =
  'requires exactly one reply body, and takes no recipient or subject of its own: the service derives them';
const REPLY_NOT_IDEMPOTENT =
  'answers an identical reply again with 201, making one reply or two, never more, and after an ambiguous 504 the reply exists';
const FORWARD_TO =
  'requires one forward recipient in to, refusing a missing, listed or malformed one with the field named';
const FORWARD_REUSES =
  'forwards the original body, subject (Fwd: once) and attachments when no replacement is given';
const FORWARD_REPLACES =
  'replaces only what is given: text replaces the body, subject the subject, attachmentIds the attachments ([] for none)';
const FORWARD_NOT_IDEMPOTENT =
  'answers an identical forward again with 201, making one forward or two, never more, and after an ambiguous 504 the forward exists';
const REPLY_FORWARD_LIMITS =
  'holds replies and forwards to 50 combined recipients and refuses suppressed recipients, storing nothing';

const WEBHOOK_SIGNED =
  'delivers email.received with the four X-Service headers, a body per the spec, signed to the byte';
const WEBHOOK_RUN_MAIL =
  'delivers email.received for mail the run sends to a covered mailbox: a POST to the webhook URL, signed to the byte with its secret';
const WEBHOOK_SCOPE =
  'delivers once per webhook whose scope covers the mailbox, for inbound mail and local delivery, and never outside it';
const WEBHOOK_GRANTS =
  "follows the owner's grants: after a grant is revoked, mail to that mailbox is not delivered";
const WEBHOOK_RETRIES =
  'retries a delivery answered 500, redirected or too late, exactly on the schedule, until a 2xx, every attempt a POST of the same email and webhook IDs';
const WEBHOOK_PAUSE =
  'pauses after 15 failed attempts in a row, records but does not send while paused, still sends a test, and resumes when re-enabled';
const WEBHOOK_URLS = 'refuses webhook endpoints that are not public http(s) URLs';

const SEND_SERVICE = 'emulator/src/services/send-service.ts';
const THREADING = 'emulator/src/domain/threading.ts';
const SENDING_ROUTES = 'emulator/src/routes/sending.ts';
const DISPATCHER = 'emulator/src/webhook-delivery/dispatcher.ts';

export const THREADS_AND_WEBHOOKS: readonly NamedMutant[] = [
  // --- reply (§4.7, D-22) ---
  {
    id: 'M-200',
    rule: 'D-22',
    bug: "References of a reply carry only the original's Message-ID, dropping the original's own References",
    file: THREADING,
    find: `      ...original.references.filter((r) => r !== original.messageId),
      original.messageId,`,
    replace: `      original.messageId,`,
    caughtBy: REPLY_BASICS,
  },
  {
    id: 'M-201',
    rule: '4.7-R2',
    bug: 'an omitted replyAll is taken as true, so a plain reply goes to every original recipient',
    file: SEND_SERVICE,
    find: 'request.replyAll ?? false',
    replace: 'request.replyAll !== false',
    caughtBy: REPLY_BASICS,
  },
  {
    id: 'M-202',
    rule: 'D-22',
    bug: 'an existing Re: prefix is recognised only as written "Re:", so "RE: Plan" becomes "Re: RE: Plan"',
    file: THREADING,
    find: 'return /^\\s*re\\s*:/i.test(subject) ?',
    replace: 'return /^\\s*Re:/.test(subject) ?',
    caughtBy: RE_ONCE,
  },
  {
    id: 'M-203',
    rule: 'D-22',
    bug: 'Re: is always prepended, so replying to "Re: Plan" gives "Re: Re: Plan"',
    file: THREADING,
    find: 'return /^\\s*re\\s*:/i.test(subject) ? subject : `Re: ${subject}`;',
    replace: 'return `Re: ${subject}`;',
    caughtBy: RE_ONCE,
  },
  {
    id: 'M-204',
    rule: '4.7-R2',
    bug: 'reply-all does not leave out the replying mailbox, which ends up writing to itself',
    file: THREADING,
    find: 'const seen = new Set<string>([replyingMailbox]);',
    replace: 'const seen = new Set<string>();',
    caughtBy: REPLY_ALL,
  },
  {
    id: 'M-205',
    rule: 'D-22',
    bug: 'reply-all copies the original Cc minus the replying mailbox without de-duplicating it against To, so addresses appear twice',
    file: THREADING,
    find: 'cc: keep(original.cc) };',
    replace: 'cc: original.cc.filter((a) => a.address !== replyingMailbox) };',
    caughtBy: REPLY_ALL,
  },
  {
    id: 'M-206',
    rule: 'D-22',
    bug: "a reply to the mailbox's own sent message goes to that message's sender, the mailbox itself, instead of its recipients",
    file: THREADING,
    find: `const primary = own
    ? original.to
`,
    replace: `const primary = own
    ? [original.from]
`,
    caughtBy: REPLY_OWN,
  },
  {
    id: 'M-207',
    rule: '4.7-R3',
    bug: 'reply ignores attachmentIds: no upload is attached and an unknown id is not refused',
    file: SEND_SERVICE,
    find: `        ...replyThreading(original),
        attachments: this.uploads(access, request.attachmentIds),`,
    replace: `        ...replyThreading(original),
        attachments: [],`,
    caughtBy: REPLY_ATTACHMENTS,
  },
  {
    id: 'M-208',
    rule: '4.3-R1',
    bug: 'a reply without a body is sent with an empty text body instead of being refused with body_required',
    file: SEND_SERVICE,
    find: `    const given = pickBody(request) as GivenBody;
    const mailbox = access.mailboxes.get(original.mailbox) as Mailbox;`,
    replace: `    const given = pickBody(request, { optional: true }) ?? { kind: 'text' as const, source: '' };
    const mailbox = access.mailboxes.get(original.mailbox) as Mailbox;`,
    caughtBy: REPLY_BODY,
  },
  {
    id: 'M-209',
    rule: '4.7-R4',
    bug: 'a reply cache keyed on the email and request body answers an identical reply with the first one, but sends and stores the second anyway',
    file: SENDING_ROUTES,
    find: `  app.post('/:emailId/reply', async (c) => {
    const original = emailInScope(c, store);
    const body = await read(c, 'ReplyRequest');
    return created(c, await sender.reply(c.get('access'), original, body, origin(c)));
  });`,
    replace: `  const replies = new Map<string, Email>();
  app.post('/:emailId/reply', async (c) => {
    const original = emailInScope(c, store);
    const body = await read(c, 'ReplyRequest');
    const key = \`\${original.id} \${JSON.stringify(body)}\`;
    const sent = await sender.reply(c.get('access'), original, body, origin(c));
    const first = replies.get(key) ?? sent;
    replies.set(key, first);
    return created(c, first);
  });`,
    caughtBy: REPLY_NOT_IDEMPOTENT,
  },
  // --- forward (§4.8, D-23) ---
  {
    id: 'M-210',
    rule: '4.8-R1',
    bug: 'forward parses its single to with the list helper, so a malformed to is refused naming to[0] instead of to',
    file: SEND_SERVICE,
    find: `    const mailbox = access.mailboxes.get(original.mailbox) as Mailbox;
    const to = [requireAddress(request.to, 'to')];`,
    replace: `    const mailbox = access.mailboxes.get(original.mailbox) as Mailbox;
    const to = requireAddresses([request.to], 'to');`,
    caughtBy: FORWARD_TO,
  },
  {
    id: 'M-211',
    rule: '4.8-R2',
    bug: "forward without attachmentIds drops the original's attachments instead of reusing them",
    file: SEND_SERVICE,
    find: '? this.originalAttachments(original)',
    replace: '? []',
    caughtBy: FORWARD_REUSES,
  },
  {
    id: 'M-212',
    rule: 'D-23',
    bug: 'Fwd: is always prepended, so forwarding a forward gives "Fwd: Fwd: Report"',
    file: THREADING,
    find: 'return /^\\s*fwd?\\s*:/i.test(subject) ? subject : `Fwd: ${subject}`;',
    replace: 'return `Fwd: ${subject}`;',
    caughtBy: FORWARD_REUSES,
  },
  {
    id: 'M-213',
    rule: '4.8-R3',
    bug: "an empty attachmentIds list on a forward is taken as omitted, so the original's attachments are still forwarded",
    file: SEND_SERVICE,
    find: `          request.attachmentIds === undefined
            ? this.originalAttachments(original)`,
    replace: `          request.attachmentIds === undefined || request.attachmentIds.length === 0
            ? this.originalAttachments(original)`,
    caughtBy: FORWARD_REPLACES,
  },
  {
    id: 'M-214',
    rule: '4.8-R4',
    bug: 'a second forward of the same email to the same recipient is answered with the first forward, but delivered again: the recipient holds a copy no answer names',
    file: SENDING_ROUTES,
    find: `  app.post('/:emailId/forward', async (c) => {
    const original = emailInScope(c, store);
    const body = await read(c, 'ForwardRequest');
    return created(c, await sender.forward(c.get('access'), original, body, origin(c)));
  });`,
    replace: `  const forwards = new Map<string, Email>();
  app.post('/:emailId/forward', async (c) => {
    const original = emailInScope(c, store);
    const body = await read(c, 'ForwardRequest');
    const key = \`\${original.id} \${String(body.request.to)}\`;
    const sent = await sender.forward(c.get('access'), original, body, origin(c));
    const first = forwards.get(key) ?? sent;
    forwards.set(key, first);
    return created(c, first);
  });`,
    caughtBy: FORWARD_NOT_IDEMPOTENT,
  },
  {
    id: 'M-215',
    rule: '8-R1',
    bug: 'the 50-recipient limit is applied to each of to, cc and bcc on its own instead of to their combined count',
    file: 'emulator/src/domain/recipients.ts',
    find: 'total += count;',
    replace: 'total = count;',
    caughtBy: REPLY_FORWARD_LIMITS,
  },
  {
    id: 'M-216',
    rule: 'D-25',
    bug: 'suppression is checked only for the to recipient, so a suppressed cc or bcc is stored and sent anyway',
    file: SEND_SERVICE,
    find: 'for (const recipient of [...draft.to, ...draft.cc, ...draft.bcc]) {',
    replace: 'for (const recipient of draft.to) {',
    caughtBy: REPLY_FORWARD_LIMITS,
  },
  // --- webhooks (§2.5, §3.2, §6) ---
  {
    id: 'M-220',
    rule: '2.5-R4',
    bug: 'the webhook id goes out in an X-Service-Webhook header instead of X-Service-Webhook-Id',
    file: DISPATCHER,
    find: "'X-Service-Webhook-Id': webhook.id,",
    replace: "'X-Service-Webhook': webhook.id,",
    caughtBy: WEBHOOK_SIGNED,
  },
  {
    id: 'M-221',
    rule: '6.3-R1',
    bug: 'the signed input joins timestamp and body without the period: <timestamp><raw_body>',
    file: 'emulator/src/webhook-delivery/signature.ts',
    find: '.update(`${timestamp}.`)',
    replace: '.update(timestamp)',
    caughtBy: WEBHOOK_SIGNED,
  },
  {
    id: 'M-222',
    rule: 'D-36',
    bug: 'the HMAC key is the secret without its whsec_ prefix',
    file: 'emulator/src/webhook-delivery/signature.ts',
    find: "createHmac('sha256', secret).update(",
    replace: "createHmac('sha256', secret.replace(/^whsec_/, '')).update(",
    caughtBy: WEBHOOK_SIGNED,
  },
  {
    id: 'M-223',
    rule: '6.3-R1',
    bug: 'the signature is computed over the body encoded as Latin-1 while its UTF-8 bytes go on the wire, so non-ASCII bodies fail verification',
    file: DISPATCHER,
    find: "'X-Service-Signature': signatureFor(secret, timestamp, body),",
    replace:
      "'X-Service-Signature': signatureFor(secret, timestamp, Buffer.from(body.toString('utf8'), 'latin1')),",
    caughtBy: WEBHOOK_SIGNED,
  },
  {
    id: 'M-224',
    rule: '2.5-R2',
    bug: "a webhook's scope is ignored: every webhook of an owner receives mail for all the owner's mailboxes",
    file: DISPATCHER,
    find: 'return mailboxesKeyMayTouch(webhook, this.store.directory.grantedMailboxes(owner.id)).has(',
    replace:
      "return mailboxesKeyMayTouch({ ...webhook, scope: 'follow-owner' }, this.store.directory.grantedMailboxes(owner.id)).has(",
    caughtBy: WEBHOOK_SCOPE,
  },
  {
    id: 'M-225',
    rule: 'D-48',
    bug: 'a copy delivered locally by a send does not fire email.received; only inbound mail does',
    file: SEND_SERVICE,
    find: '        this.onDelivered(delivered);\n',
    replace: '',
    caughtBy: WEBHOOK_SCOPE,
  },
  {
    id: 'M-226',
    rule: '2.5-R2',
    bug: "a follow-owner webhook covers every mailbox of a domain the owner has any grant in, so revoking one mailbox's grant does not stop its deliveries",
    file: DISPATCHER,
    find: `    return mailboxesKeyMayTouch(webhook, this.store.directory.grantedMailboxes(owner.id)).has(
      mailbox,
    );`,
    replace: `    const granted = this.store.directory.grantedMailboxes(owner.id);
    if (webhook.scope === 'follow-owner')
      return granted.some((g) => mailbox.endsWith(\`@\${g.domain}\`));
    return mailboxesKeyMayTouch(webhook, granted).has(mailbox);`,
    caughtBy: WEBHOOK_GRANTS,
  },
  {
    id: 'M-227',
    rule: 'D-34',
    bug: 'the retry schedule is read one step late: the first retry comes after 5 min instead of 1 min',
    file: 'emulator/src/domain/webhook-policy.ts',
    find: 'const delay = RETRY_DELAYS_MS[attempts - 1];',
    replace: 'const delay = RETRY_DELAYS_MS[attempts];',
    caughtBy: WEBHOOK_RETRIES,
  },
  {
    id: 'M-228',
    rule: '6.4-R6',
    bug: 'a 3xx redirect answer counts as a successful delivery, so it is never retried',
    file: DISPATCHER,
    find: 'const ok = response.status >= 200 && response.status < 300;',
    replace: 'const ok = response.status >= 200 && response.status < 400;',
    caughtBy: WEBHOOK_RETRIES,
  },
  {
    id: 'M-229',
    rule: 'D-30',
    bug: 'the delivery deadline in milliseconds is scaled as if it were seconds, so a late answer still counts as delivered',
    file: 'emulator/src/webhook-delivery/connector.ts',
    within: 'httpConnector',
    find: '    }, timeoutMs);',
    replace: '    }, timeoutMs * 1000);',
    caughtBy: WEBHOOK_RETRIES,
  },
  {
    id: 'M-230',
    rule: 'D-35',
    bug: 'a webhook is paused only once more than 15 attempts in a row failed (after 16)',
    file: 'emulator/src/domain/webhook-policy.ts',
    find: 'return consecutiveFailures >= PAUSE_AFTER_CONSECUTIVE_FAILURES;',
    replace: 'return consecutiveFailures > PAUSE_AFTER_CONSECUTIVE_FAILURES;',
    caughtBy: WEBHOOK_PAUSE,
  },
  {
    id: 'M-231',
    rule: '6.1-R2',
    bug: 'Send test is skipped for a paused webhook, so the owner cannot test the fixed endpoint before re-enabling it',
    file: DISPATCHER,
    find: `    const at = this.clock.now();
    const data = { test: true, message: 'Test delivery from the mailtwin control plane.' };`,
    replace: `    const at = this.clock.now();
    if (webhook.status === 'paused')
      return { ok: false, statusCode: null, error: 'webhook is paused', latencyMs: 0 };
    const data = { test: true, message: 'Test delivery from the mailtwin control plane.' };`,
    caughtBy: WEBHOOK_PAUSE,
  },
  {
    id: 'M-232',
    rule: 'D-45',
    bug: 'endpoint addresses are refused from a blocklist of private, loopback and link-local ranges, so carrier-grade NAT and unique-local IPv6 are accepted',
    file: 'emulator/src/webhook-delivery/endpoint-guard.ts',
    find: "return c.range === 'unicast' || (options.allowLoopback && c.range === 'loopback');",
    replace:
      "return !['private', 'loopback', 'linkLocal'].includes(c.range) || (options.allowLoopback && c.range === 'loopback');",
    caughtBy: WEBHOOK_URLS,
  },
  {
    id: 'M-233',
    rule: '2.5-R1',
    bug: 'only bracketed IPv6 hosts are treated as IP literals, so a private IPv4 literal passes the host-name check',
    file: 'emulator/src/webhook-delivery/endpoint-guard.ts',
    find: 'const isIpLiteral = bracketed || isIP(hostname) === 4;',
    replace: 'const isIpLiteral = bracketed;',
    caughtBy: WEBHOOK_URLS,
  },
  {
    id: 'M-234',
    rule: 'D-35',
    bug: 're-enabling a paused webhook keeps its count of consecutive failures, so one more failure pauses it again',
    file: 'emulator/src/services/webhook-service.ts',
    find: "this.store.webhooks.setStatus(id, 'active', 0);",
    replace: "this.store.webhooks.setStatus(id, 'active');",
    caughtBy: WEBHOOK_PAUSE,
  },
  {
    id: 'M-235',
    rule: '6.2-R2',
    bug: 'the X-Service-Event header names the event in upper case (EMAIL.RECEIVED)',
    file: DISPATCHER,
    find: "'X-Service-Event': event,",
    replace: "'X-Service-Event': event.toUpperCase(),",
    caughtBy: WEBHOOK_RUN_MAIL,
  },
  {
    id: 'M-236',
    rule: '6.3-R1',
    bug: 'the signature covers the body without the timestamp: <raw_body> alone',
    file: 'emulator/src/webhook-delivery/signature.ts',
    find: '.update(`${timestamp}.`)',
    replace: ".update('')",
    caughtBy: WEBHOOK_RUN_MAIL,
  },
  {
    id: 'M-274',
    rule: '4.7-R2',
    bug: 'replyAll defaults to true: a reply without it goes to every other To and Cc address',
    file: SEND_SERVICE,
    find: 'request.replyAll ?? false',
    replace: 'request.replyAll ?? true',
    caughtBy: REPLY_ALL_DEFAULT,
  },
  {
    id: 'M-275',
    rule: '6.1-R1',
    bug: 'an email cannot be read until some time after it reached the mailbox (its first read answers 404), so its webhook announces an email the API cannot serve yet',
    file: 'emulator/src/routes/emails.ts',
    find: "app.get('/:emailId', (c) => c.json(emailDetail(emailInScope(c, store))));",
    replace:
      "const notYet = new Set<string>(); app.get('/:emailId', (c) => { const email = emailInScope(c, store); if (!notYet.has(email.id)) { notYet.add(email.id); throw new ApiError('email_not_found', 'Not readable yet.', 'emailId'); } return c.json(emailDetail(email)); });",
    caughtBy: WEBHOOK_RUN_MAIL,
  },
];
