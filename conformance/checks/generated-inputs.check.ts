/**
 * §7 and the bad-input standard, for every operation that takes a body or a query: requests
 * generated from the contract's own request schemas (src/model/request-arbitraries.ts) are
 * answered as the contract says. Valid ones, edge values and odd Unicode included, are
 * accepted with the documented 2xx and a spec-valid answer; invalid ones (one mutation of a
 * valid body: wrong type, missing or unknown field, a value over its limit, a broken prose
 * rule, malformed JSON or multipart, another media type) are refused with a 4xx in the Error
 * schema, the expected code and `field`, and change nothing. Never a 5xx.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { expectAt } from '../src/contract/charge.ts';
import { MissingCapability, rule, type CheckContext } from '../src/check-runner/check.ts';
import type { ApiClient, ApiResponse } from '../src/client/client.ts';
import type { Need } from '../src/run/config.ts';
import { ControlClient, createTenant } from '../src/client/control-client.ts';
import { disallowedRecipients } from '../src/client/safety.ts';
import { MailWatch } from '../src/worlds/mail-watch.ts';
import { tagged } from '../src/worlds/claims.ts';
import {
  EXTERNAL_DOMAIN,
  caseRule,
  codeRule,
  edgeCase,
  invalidBody,
  operationInfo,
  validBody,
  validCase,
  type RequestCase,
  type RequestContext,
} from '../src/model/request-arbitraries.ts';
import { expectSuccess } from '../src/model/statuses.ts';

/** One more upload than §8's 20 attachments per message, for the over-limit mutation. */
const UPLOADS = 21;

interface World {
  api: ApiClient;
  /** The control plane, in the control world; an API world has none. */
  control: ControlClient | undefined;
  /** An API world's view of its mailboxes: the check's own mail, awaited and cleaned up. */
  watch: MailWatch | undefined;
  apiKey: string;
  mailboxes: string[];
  domain: string;
  /** In an API world, the sent copy in the second mailbox of the email to reply to. */
  sentCopyId?: string;
  /** An inbound email in the first mailbox, from an external sender, to that mailbox only. */
  emailId: string;
  context: RequestContext;
}

/**
 * A tenant with two mailboxes, an email to reply to, forward and patch (its only recipient is
 * the replying mailbox, so a reply has exactly one recipient besides cc and bcc), and uploads.
 */
async function world(
  context: CheckContext,
  uploads: number,
  moreMail = 0,
  needsEmail = true,
): Promise<World> {
  const { api, target } = context;
  if (target.control === undefined) return apiWorld(context, uploads, needsEmail);
  const control = new ControlClient(api, target.control);
  const tenant = await createTenant(control, 2);
  const apiKey = tenant.key.secret;
  const box0 = tenant.mailboxes[0] as string;
  const original = await control.inject({
    mailbox: box0,
    from: `sender-${randomBytes(4).toString('hex')}@${EXTERNAL_DOMAIN}`,
    to: [box0],
    subject: 'Generated inputs',
    text: 'The original message.',
  });
  // Mail for listings to find: words of the search generator, a sender name, both folders of
  // §3.1 (ours beside them, D-5, are not assumed).
  const words = ['invoice café', 'naïve über', '日本語 q3 2026', 'Ünïcode report'];
  for (let i = 0; i < moreMail; i += 1) {
    await control.inject({
      mailbox: box0,
      from: `Zoë Müller <zoe-${i}@${EXTERNAL_DOMAIN}>`,
      to: [box0],
      subject: words[i % words.length] as string,
      text: `Generated inputs ${words[(i + 1) % words.length] as string}`,
      folder: ['inbox', 'trash'][i % 2] as string,
      read: i % 2 === 0,
      starred: i % 3 === 0,
    });
  }
  return {
    api,
    control,
    watch: undefined,
    apiKey,
    mailboxes: tenant.mailboxes,
    domain: tenant.domain,
    emailId: original.id,
    context: {
      mailboxes: tenant.mailboxes,
      uploadIds: await uploaded(api, apiKey, uploads),
      implicitRecipients: 1,
    },
  };
}

/**
 * An API world: the two `--mailbox` addresses and the key given, with an email to reply to,
 * forward and patch sent by the second mailbox to the first (a reply to it has one recipient,
 * the second mailbox), unless the operation needs none (listings read the mailbox as it is).
 */
async function apiWorld(
  context: CheckContext,
  uploads: number,
  needsEmail: boolean,
): Promise<World> {
  const { api, target } = context;
  const mailboxes = [...(target.mailboxes ?? [])].slice(0, 2);
  const wanted = needsEmail ? 2 : 1;
  if (target.apiKey === undefined || mailboxes.length < wanted)
    throw new MissingCapability(
      `needs ${wanted} mailbox${wanted === 1 ? '' : 'es'} of one owner (give --mailbox${wanted === 1 ? '' : ' twice'}; ${mailboxes.length} given)`,
    );
  const [box0, box1] = mailboxes as [string, string | undefined];
  const apiKey = target.apiKey;
  // Side by side with other checks, the check tells its mail from theirs by its tag
  // (worlds/claims.ts): the original carries it, and so does every reply to it.
  const watch = new MailWatch(api, apiKey, mailboxes, target.deliveryTimeoutMs, true, context.tag);
  const subject =
    context.tag === undefined ? 'Generated inputs' : tagged('Generated inputs', context.tag);
  await watch.start();
  context.cleanup(() => watch.removeAll());
  let emailId = '';
  let sentCopyId: string | undefined;
  if (needsEmail && box1 !== undefined) {
    const sent = await api.request({
      method: 'POST',
      path: '/emails/send',
      json: { from: box1, to: box0, subject, text: 'The original message.' },
      apiKey,
    });
    expectSuccess('4.3-R6', sent.status, 'setup: the email to reply to');
    watch.recordWrite(sent);
    sentCopyId = sent.json<{ id: string }>().id;
    const arrived = (await watch.newEmails(box0)).filter((e) => !watch.isCreated(e.id));
    expectAt('4.3-R6', arrived.length, 'setup: the email reached the first mailbox').toBe(1);
    emailId = arrived[0]!.id;
  }
  return {
    api,
    control: undefined,
    watch,
    apiKey,
    mailboxes,
    domain: box0.split('@')[1]!,
    emailId,
    ...(sentCopyId === undefined ? {} : { sentCopyId }),
    context: {
      mailboxes,
      uploadIds: await uploaded(api, apiKey, uploads),
      implicitRecipients: 1,
    },
  };
}

/** `count` small uploads, for attachmentIds. */
async function uploaded(api: ApiClient, apiKey: string, count: number): Promise<string[]> {
  const uploadIds: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const form = new FormData();
    form.append('file', new Blob([`file ${i}`], { type: 'text/plain' }), `file-${i}.txt`);
    const response = await api.request({
      method: 'POST',
      path: '/attachments',
      body: form,
      apiKey,
    });
    expectSuccess('4.9-R1', response.status, `setup: upload ${i}`);
    uploadIds.push(response.json<{ id: string }>().id);
  }
  return uploadIds;
}

/**
 * Generated cases of one check sent at once: each judges only its own answer, except a PATCH,
 * whose answer is the email as it then is, which a PATCH beside it could change too.
 */
const casesAtOnce = (operationId: string) => (operationId === 'updateEmail' ? 1 : 8);

/** Operations whose valid requests make mail with a subject the generator chose. */
const UNTAGGED_MAIL = new Set(['sendEmail', 'forwardEmail']);

const MAKES_MAIL = new Set(['sendEmail', 'replyToEmail', 'forwardEmail']);

/**
 * The cases of `cases` the suite's own recipient guard lets through (client/safety.ts): a
 * case the guard would refuse (a malformed JSON text cut inside an address, free text that
 * looks like one) is never generated, so no seed can make a check skip itself (issue 28).
 * Judged against the check's own mailboxes, a subset of what any run allows.
 */
function withinGuard(
  operationId: string,
  mailboxes: readonly string[],
  cases: fc.Arbitrary<RequestCase>,
): fc.Arbitrary<RequestCase> {
  if (!MAKES_MAIL.has(operationId)) return cases;
  const path = operationInfo(operationId).path.replace('{emailId}', 'x');
  return cases.filter((c) => {
    const body = typeof c.body === 'string' ? { text: c.body } : { json: c.body };
    return disallowedRecipients('POST', path, body, mailboxes).length === 0;
  });
}

/** Sends one generated case to its operation; an API world awaits what it delivers. */
async function send(w: World, operationId: string, c: RequestCase): Promise<ApiResponse> {
  const response = await request(w, operationId, c);
  // Only a send, reply or forward delivers mail (a PATCH answers with the email it changed).
  if (MAKES_MAIL.has(operationId)) w.watch?.recordWrite(response);
  return response;
}

function request(w: World, operationId: string, c: RequestCase): Promise<ApiResponse> {
  const info = operationInfo(operationId);
  const path = info.path.replace('{emailId}', encodeURIComponent(w.emailId));
  if (info.kind === 'query') {
    return w.api.request({ path, query: c.body as Record<string, string>, apiKey: w.apiKey });
  }
  const text = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
  return w.api.request({
    method: info.method.toUpperCase(),
    path,
    apiKey: w.apiKey,
    // No Content-Type at all: bytes, which fetch sends without one.
    ...(c.contentType === ''
      ? { body: new TextEncoder().encode(text) }
      : { body: text, headers: { 'Content-Type': c.contentType } }),
  });
}

/** The case and the answer, for failure messages. */
function describeCase(operationId: string, c: RequestCase, response: ApiResponse): string {
  const body = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
  const sent = body.length > 600 ? `${body.slice(0, 600)}… (${body.length} chars)` : body;
  const expected =
    c.expectedCodes.length === 0
      ? `${operationInfo(operationId).successStatus}`
      : `4xx ${c.expectedCodes.join(' or ')}${c.expectedField === undefined ? '' : ` with field ${JSON.stringify(c.expectedField)}`}`;
  return [
    `${operationId}: ${c.why}`,
    `  sent (${c.contentType || 'no Content-Type'}): ${sent}`,
    `  expected: ${expected}`,
    `  got: ${response.status} ${response.text.slice(0, 400)}`,
  ].join('\n');
}

/** The body a JSON case sent, as a value (edge cases may send it as text). */
function sentJson(c: RequestCase): Record<string, unknown> | undefined {
  if (typeof c.body !== 'string') return c.body as Record<string, unknown>;
  try {
    return JSON.parse(c.body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The address inside `address` or `Name <address>`, lower case. */
const addressOf = (value: unknown) =>
  String(value)
    .replace(/^.*<([^<>]*)>\s*$/s, '$1')
    .trim()
    .toLowerCase();

interface Detail {
  mailbox: string;
  folder: string;
  read: boolean;
  starred: boolean;
}

/** The decision that fixes an operation's exact success status and answer. */
const DECIDED_ANSWER: Record<string, string | undefined> = {
  sendEmail: 'D-21',
  replyToEmail: 'D-21',
  forwardEmail: 'D-21',
  updateEmail: 'D-20',
};

/**
 * Accepted (a 2xx, charged to the rule the case verifies); the exact status and the answer's
 * shape are decided (D-21 for send, reply and forward, D-20 for PATCH; an upload's 201 is D-44,
 * not asserted); what the answer must say is the document's.
 */
function expectAccepted(w: World, operationId: string, c: RequestCase, response: ApiResponse) {
  const what = describeCase(operationId, c, response);
  expectSuccess(caseRule(operationId, c), response.status, what);
  const answer = response.json<Record<string, unknown>>();
  if (c.expectedResponse !== undefined) {
    // §2.4: the upload keeps its name and size; its media type when the part had one (the
    // type of a part without one is D-44, not asserted).
    const { contentType, ...kept } = c.expectedResponse;
    expectAt('4.9-R2', answer, what).toMatchObject(
      c.why.includes('D-44') ? kept : { ...kept, contentType },
    );
  }
  const decided = DECIDED_ANSWER[operationId];
  if (decided !== undefined)
    expectAt(decided, response.status, what).toBe(operationInfo(operationId).successStatus);
  const body = sentJson(c) ?? {};
  switch (operationId) {
    case 'sendEmail':
      expectAt('D-21', answer, what).toMatchObject({ mailbox: addressOf(body.from) });
      expectAt('D-48', answer.folder, `${what}\n  (the sent copy is in sent)`).toBe('sent');
      break;
    case 'replyToEmail':
    case 'forwardEmail':
      expectAt('D-21', answer, what).toMatchObject({ mailbox: w.mailboxes[0] });
      expectAt('D-48', answer.folder, `${what}\n  (the sent copy is in sent)`).toBe('sent');
      break;
    case 'updateEmail': {
      const changed = Object.fromEntries(
        ['folder', 'read', 'starred'].filter((k) => k in body).map((k) => [k, body[k]]),
      );
      expectAt('D-20', answer, `${what}\n  (D-20: the answer is the updated email)`).toMatchObject(
        changed,
      );
      break;
    }
    case 'listEmails': {
      // The name of the page's array is not shown (§4.2): the page's one array.
      const emails = Object.values(answer).find(Array.isArray) as Detail[];
      const query = c.body as Record<string, string>;
      expectAt('4.2-R10', emails.length, what).toBeLessThanOrEqual(Number(query.limit ?? 25));
      for (const email of emails) {
        expectAt('4.2-R1', email.mailbox, what).toBe(String(query.mailbox).toLowerCase());
        if (query.folder !== undefined) expectAt('4.2-R2', email.folder, what).toBe(query.folder);
      }
      break;
    }
  }
}

/**
 * Refused: never a 5xx (§7), a 4xx (charged to the rule that says it must be refused), whose
 * Error carries one of the expected codes and the expected field (decided: D-12, or the
 * decision that refuses it).
 */
function expectRefused(operationId: string, c: RequestCase, response: ApiResponse) {
  const what = describeCase(operationId, c, response);
  expectAt('7-R1', response.status, `${what}\n  (never a 5xx)`).toBeLessThan(500);
  expectAt(
    caseRule(operationId, c),
    response.status,
    `${what}\n  (refused: a 4xx)`,
  ).toBeGreaterThanOrEqual(400);
  const error = response.json<{ code?: string; field?: string }>();
  const decided = codeRule(operationId, c);
  // The target's own answer for one of the conditions (its binding) counts as that code.
  if (!c.expectedCodes.some((code) => response.answersError?.(code) === true))
    expectAt(decided, c.expectedCodes, `${what}\n  (the error code)`).toContain(error.code);
  if (c.expectedField !== undefined) {
    expectAt(decided, error.field, `${what}\n  (the field the error names)`).toBe(c.expectedField);
  }
}

/**
 * Nothing a refused request carried may exist afterwards (§7: the request failed), in any
 * folder: which folders a deployment has beyond inbox and trash is not assumed.
 */
async function expectUnchanged(w: World, operationId: string, before: Detail): Promise<void> {
  if (['sendEmail', 'replyToEmail', 'forwardEmail'].includes(operationId)) {
    for (const mailbox of w.mailboxes) {
      const emails: { id: string }[] =
        w.watch !== undefined
          ? await w.watch.newEmails(mailbox)
          : (Object.values(
              (
                await w.api.request({
                  path: '/emails',
                  query: { mailbox, limit: 100 },
                  apiKey: w.apiKey,
                })
              ).json<object>(),
            ).find(Array.isArray) as { id: string }[]);
      const expected =
        mailbox === w.mailboxes[0] ? [w.emailId] : w.sentCopyId === undefined ? [] : [w.sentCopyId];
      expectAt(
        '7-R2',
        emails.map((e) => e.id),
        `refused requests stored nothing in ${mailbox}`,
      ).toEqual(expected);
    }
    // What left for outside addresses shows only in a control plane's outbox.
    if (w.control !== undefined) {
      const outbox = (await w.control.outbox()).filter((e) => e.from.endsWith(`@${w.domain}`));
      expectAt('7-R2', outbox, 'refused requests sent nothing').toEqual([]);
    }
  }
  if (operationId === 'updateEmail') {
    const after = await w.api.request({ path: `/emails/${w.emailId}`, apiKey: w.apiKey });
    expectAt('7-R2', after.json<Detail>(), 'refused PATCHes changed nothing').toMatchObject(before);
  }
}

interface Operation {
  operationId: string;
  uploads: number;
  /** More inbound mail besides the one email (listings). */
  moreMail?: number;
  needs: Need[];
  accepts: string[];
  refuses: string[];
}

const WRITES: Need[] = ['mail', 'destructive'];

const OPERATIONS: Operation[] = [
  {
    operationId: 'sendEmail',
    uploads: UPLOADS,
    needs: WRITES,
    accepts: [
      '4.3-R1',
      '4.3-R6',
      '4.3-R7',
      '4.3-R8',
      '4.3-R9',
      'D-9',
      'D-10',
      'D-11',
      'D-28',
      '2.6-R3',
      '2.6-R2',
      '8-R4',
      'D-21',
      'D-48',
    ],
    refuses: [
      '7-R1',
      'D-12',
      'D-31',
      'D-28',
      'D-11',
      '4.3-R1',
      '4.3-R2',
      '4.3-R3',
      '4.3-R7',
      '4.3-R9',
      'D-24',
      '4.3-R6',
      '8-R4',
      'D-26',
      'D-32',
      '7-R2',
    ],
  },
  {
    operationId: 'replyToEmail',
    uploads: UPLOADS,
    needs: WRITES,
    accepts: [
      '4.7-R2',
      '4.7-R3',
      '4.3-R1',
      '4.3-R8',
      'D-10',
      'D-11',
      'D-28',
      '2.6-R3',
      '2.6-R2',
      '8-R4',
      'D-9',
      'D-21',
      'D-48',
    ],
    refuses: [
      '7-R1',
      'D-12',
      'D-31',
      'D-28',
      'D-11',
      '4.3-R1',
      '4.3-R2',
      '4.3-R3',
      '4.3-R8',
      'D-24',
      '8-R4',
      'D-32',
      '7-R2',
    ],
  },
  {
    operationId: 'forwardEmail',
    uploads: UPLOADS,
    needs: WRITES,
    accepts: [
      '4.8-R1',
      '4.8-R3',
      '4.3-R7',
      '4.3-R8',
      'D-9',
      'D-10',
      'D-11',
      'D-28',
      '2.6-R3',
      '2.6-R2',
      '8-R4',
      'D-21',
      'D-48',
    ],
    refuses: [
      '7-R1',
      'D-12',
      'D-31',
      'D-28',
      'D-11',
      '4.3-R2',
      '4.3-R3',
      '4.3-R9',
      '4.8-R1',
      'D-24',
      '4.3-R1',
      '8-R4',
      'D-32',
      '7-R2',
    ],
  },
  {
    operationId: 'updateEmail',
    uploads: 0,
    needs: WRITES,
    accepts: ['4.5-R1', 'D-20', 'D-28'],
    refuses: ['7-R1', 'D-12', 'D-31', 'D-28', '4.5-R1', 'D-5', 'D-20', '7-R2'],
  },
  {
    operationId: 'listEmails',
    uploads: 0,
    moreMail: 6,
    // GET only: it writes nothing through the API, so a read-only run keeps it. The control
    // world fills the mailbox first; an API world reads the mailbox as it is.
    needs: [],
    accepts: ['4.2-R1', 'D-13', 'D-15', 'D-18', 'D-19', 'D-9', '4.2-R10', '4.2-R2'],
    refuses: ['7-R1', 'D-12', '4.2-R1', 'D-5', 'D-13', 'D-15', 'D-16', 'D-18', 'D-19', 'D-26'],
  },
  {
    operationId: 'uploadAttachment',
    uploads: 0,
    needs: WRITES,
    accepts: ['4.9-R1', '4.9-R2'],
    refuses: ['7-R1', 'D-12', 'D-28', '4.9-R1', '8-R8', 'D-31'],
  },
];

for (const { operationId, uploads, moreMail, needs, accepts, refuses } of OPERATIONS) {
  const { successStatus } = operationInfo(operationId);

  rule(
    accepts,
    `generated inputs: ${operationId} accepts every valid request, edge values and odd Unicode included, with ${successStatus} and a spec-valid answer`,
    async (context) => {
      const w = await world(context, uploads, moreMail, operationId !== 'listEmails');
      const valid = validBody(operationId, w.context).map((body) => validCase(operationId, body));
      await context.property(
        withinGuard(
          operationId,
          w.context.mailboxes,
          fc.oneof(
            { weight: 2, arbitrary: valid },
            { weight: 1, arbitrary: edgeCase(operationId, w.context) },
          ),
        ),
        async (c) => expectAccepted(w, operationId, c, await send(w, operationId, c)),
        // Each case judges only its own answer: cases run side by side (property.ts), and a
        // failure is found and shrunk one case at a time as before.
        { concurrency: casesAtOnce(operationId) },
      );
    },
    // A valid send, or forward with a subject of its own, makes mail with a generated subject,
    // which carries no tag: those two run alone; the other checks run side by side.
    { needs, timeout: 60_000, concurrent: !UNTAGGED_MAIL.has(operationId) },
  );

  rule(
    refuses,
    `generated inputs: ${operationId} refuses every invalid request with a 4xx naming the expected code and field, changes nothing, never a 5xx`,
    async (context) => {
      const w = await world(context, uploads, moreMail, operationId !== 'listEmails');
      const before =
        w.emailId === ''
          ? undefined
          : (
              await context.api.request({ path: `/emails/${w.emailId}`, apiKey: w.apiKey })
            ).json<Detail>();
      const state = { folder: before?.folder, read: before?.read, starred: before?.starred };
      const invalid = withinGuard(
        operationId,
        w.context.mailboxes,
        invalidBody(operationId, w.context),
      );
      await context.property(
        invalid,
        async (c) => expectRefused(operationId, c, await send(w, operationId, c)),
        // Each case judges only its own answer; what must be unchanged is read after them all.
        { concurrency: casesAtOnce(operationId) },
      );
      await expectUnchanged(w, operationId, state as Detail);
    },
    // Refused requests make no mail; what they must leave unchanged is the check's own.
    { needs, timeout: 60_000, concurrent: true },
  );
}
