/**
 * The conformant variants of the emulator (issue 14 item 5). Each changes one behaviour the
 * service document, *Email Service API and Inbound Webhooks*, leaves open, quotes the words
 * that leave it open, and names the decided rule of spec/DECISIONS.md it chooses otherwise.
 *
 * Considered and left out, because a sentence of the document could be read against them:
 * - `limit` over 100 clamped to 100 instead of refused (D-15): §7 lists "violation of a limit in
 *   section 8" among the conditions that produce an error, and §8 lists the page size.
 * - only `inbox`, `sent` and `trash` as folders (D-5): allowed by §3.1 ("includes inbox and
 *   trash"), but the demo fixture files mail in `archive`, so it would need a fixture change too.
 * - unknown request fields ignored (D-31): not forbidden, but an ignored misspelt field makes a
 *   refusal the suite generates into a send, which is more than one behaviour to judge.
 */
import type { Variant } from './variant.ts';

const ERRORS = 'emulator/src/errors.ts';
const THREADING = 'emulator/src/domain/threading.ts';
const WEBHOOK_POLICY = 'emulator/src/domain/webhook-policy.ts';
const EMAIL_STORE = 'emulator/src/store/email-store.ts';
const SENDING = 'emulator/src/routes/sending.ts';

const CODES_NOT_SHOWN = { section: '§7', quote: 'The list of code values: not shown.' };
const STATUS_NOT_SHOWN = {
  section: '§7',
  quote: 'The HTTP status for each error condition: not shown.',
};

export const VARIANTS: readonly Variant[] = [
  {
    id: 'V-1',
    departsFrom: 'D-5',
    change: 'an unknown folder name is refused with code bad_folder instead of invalid_folder',
    allowedBy: [
      { section: '§3.1', quote: 'Full list of folder names: not shown.' },
      CODES_NOT_SHOWN,
    ],
    note: 'Still a 400 with field folder; only the code string differs (D-5 and D-12 name it).',
    edits: [
      {
        file: ERRORS,
        find: '    this.status = ERROR_STATUS[code];\n',
        replace:
          "    this.status = ERROR_STATUS[code];\n    if (code === 'invalid_folder') (this as { code: string }).code = 'bad_folder';\n",
      },
    ],
  },
  {
    id: 'V-2',
    departsFrom: 'D-12',
    change: 'an invalid field is answered 422 instead of 400 (code invalid_field unchanged)',
    allowedBy: [STATUS_NOT_SHOWN],
    edits: [{ file: ERRORS, find: '  invalid_field: 400,', replace: '  invalid_field: 422,' }],
  },
  {
    id: 'V-3',
    departsFrom: 'D-21',
    change: 'send, reply and forward answer 200 instead of 201 (same body and Location)',
    allowedBy: [
      { section: '§4.3', quote: 'Success response body shape: not shown.' },
      { section: '§4.7', quote: 'Other body fields and the response shape: not shown.' },
      {
        section: '§4',
        quote: 'Successful JSON operations return their result directly (no envelope).',
      },
    ],
    note: '§7 names the success codes of DELETE and downloads only; 200 is a success.',
    edits: [
      {
        file: 'emulator/src/routes/sending.ts',
        find: "return c.body(body, 201, { 'Content-Type': 'application/json', Location: location });",
        replace:
          "return c.body(body, 200, { 'Content-Type': 'application/json', Location: location });",
      },
    ],
  },
  {
    id: 'V-4',
    departsFrom: 'D-35',
    change: 'a webhook is paused after 10 consecutive failed attempts instead of 15',
    allowedBy: [
      { section: '§3.2', quote: 'The number of failures that triggers pausing: not shown.' },
    ],
    edits: [
      {
        file: WEBHOOK_POLICY,
        find: 'export const PAUSE_AFTER_CONSECUTIVE_FAILURES = 15;',
        replace: 'export const PAUSE_AFTER_CONSECUTIVE_FAILURES = 10;',
      },
    ],
  },
  {
    id: 'V-5',
    departsFrom: 'D-34',
    change:
      'failed deliveries are retried after 30 s, 2 min, 10 min, 1 h, 4 h and 8 h instead of 1 min, 5 min, 30 min, 2 h, 6 h and 12 h (still 7 attempts)',
    allowedBy: [
      { section: '§6.4', quote: 'Unsuccessful deliveries are retried.' },
      { section: '§6.4', quote: 'The retry schedule and count: not shown.' },
    ],
    edits: [
      {
        file: WEBHOOK_POLICY,
        find: '  60_000,\n  5 * 60_000,\n  30 * 60_000,\n  2 * 3_600_000,\n  6 * 3_600_000,\n  12 * 3_600_000,\n',
        replace:
          '  30_000,\n  2 * 60_000,\n  10 * 60_000,\n  3_600_000,\n  4 * 3_600_000,\n  8 * 3_600_000,\n',
      },
    ],
  },
  {
    id: 'V-6',
    departsFrom: 'D-23',
    change:
      'a forward with no subject of its own gets "Fw: " instead of "Fwd: " before the original',
    allowedBy: [
      {
        section: '§4.8',
        quote:
          'The original body, subject and attachments are reused when replacements are omitted.',
      },
      {
        section: '§4.8',
        quote: 'The recipient field name and other body fields and the response shape: not shown.',
      },
    ],
    note: 'The original subject is reused behind a prefix, exactly as with D-23 own "Fwd: ".',
    edits: [{ file: THREADING, find: '`Fwd: ${subject}`', replace: '`Fw: ${subject}`' }],
  },
  {
    id: 'V-7',
    departsFrom: 'D-13',
    change:
      'every word of q matches as a prefix ("cat" finds "catalogue"), not only words ending in *',
    allowedBy: [{ section: '§4.2', quote: 'Free-text search.' }],
    note: 'Whatever a whole-word search finds, a prefix search finds too, and more.',
    edits: [
      {
        file: 'emulator/src/domain/search.ts',
        find: "`\"${word}\"${prefix ? '*' : ''}`",
        replace: '`"${word}"*`',
      },
    ],
  },
  {
    id: 'V-8',
    departsFrom: 'D-27',
    change: 'the platform request size ceiling is 30 MiB instead of 25 MiB',
    allowedBy: [
      {
        section: '§4.9',
        quote:
          "The endpoint adds no application-level size cap; limits of the hosting platform's request size and object storage still apply.",
      },
    ],
    note: 'The 3 MiB attachment and 5 MiB message limits of §8 are unchanged.',
    edits: [
      {
        file: 'emulator/src/http/request-body-limit.ts',
        find: 'export const DEFAULT_MAX_REQUEST_BYTES = 25 * 1024 * 1024;',
        replace: 'export const DEFAULT_MAX_REQUEST_BYTES = 30 * 1024 * 1024;',
      },
    ],
  },
  {
    id: 'V-9',
    departsFrom: 'D-17',
    change: 'emails received at the same instant are listed by id ascending instead of descending',
    allowedBy: [{ section: '§4.2', quote: 'Results are ordered newest-first.' }],
    note: 'Emails with equal times are equally new; the cursor follows the same order, so a walk still returns each email once.',
    edits: [
      {
        file: EMAIL_STORE,
        find: '(e.received_at = @afterAt AND e.id < @afterId)',
        replace: '(e.received_at = @afterAt AND e.id > @afterId)',
      },
      {
        file: EMAIL_STORE,
        find: "ORDER BY e.received_at DESC, e.id DESC ${limitOf('@limit')}",
        replace: "ORDER BY e.received_at DESC, e.id ASC ${limitOf('@limit')}",
      },
    ],
  },
  {
    id: 'V-10',
    departsFrom: 'D-25',
    change:
      'a suppressed recipient is answered 400 instead of 422 (code recipient_suppressed unchanged)',
    allowedBy: [
      {
        section: '§4.3',
        quote: 'When a recipient is suppressed, the request fails before sending.',
      },
      STATUS_NOT_SHOWN,
    ],
    edits: [
      {
        file: ERRORS,
        find: '  recipient_suppressed: 422,',
        replace: '  recipient_suppressed: 400,',
      },
    ],
  },
  {
    id: 'V-11',
    departsFrom: 'D-22',
    change: 'a reply subject gets "RE: " instead of "Re: " (an existing Re:, any case, still kept)',
    allowedBy: [
      {
        section: '§4.7',
        quote:
          'The service determines sender, recipients, subject and threading from the email ID.',
      },
    ],
    edits: [{ file: THREADING, find: '`Re: ${subject}`', replace: '`RE: ${subject}`' }],
  },
  {
    id: 'V-12',
    departsFrom: 'D-29',
    change:
      'a request without an API key is answered invalid_api_key, like a wrong key, instead of missing_api_key',
    allowedBy: [{ section: '§7', quote: 'absent or invalid credentials' }, CODES_NOT_SHOWN],
    note: '§7 lists absent and invalid credentials as one condition; still 401 with WWW-Authenticate.',
    edits: [
      {
        file: 'emulator/src/http/auth.ts',
        find: "      throw new ApiError(\n        'missing_api_key',",
        replace: "      throw new ApiError(\n        'invalid_api_key',",
      },
    ],
  },
  {
    id: 'V-13',
    departsFrom: 'D-18',
    change: 'dateTo is an inclusive bound instead of an exclusive one',
    allowedBy: [{ section: '§4.2', quote: 'Upper date bound.' }],
    edits: [
      {
        file: EMAIL_STORE,
        find: "'e.received_at < @receivedBefore'",
        replace: "'e.received_at <= @receivedBefore'",
      },
    ],
  },
  {
    id: 'V-14',
    departsFrom: 'D-2',
    change: 'GET /mailboxes lists the addresses in descending order instead of ascending',
    allowedBy: [
      { section: '§4.1', quote: 'Returns the mailbox addresses available to the key.' },
      { section: '§4.1', quote: 'Response item fields: not shown.' },
    ],
    edits: [
      {
        file: 'emulator/src/routes/mailboxes.ts',
        find: 'a.address < b.address ? -1 : 1,',
        replace: 'a.address < b.address ? 1 : -1,',
      },
    ],
  },
  {
    id: 'V-15',
    // No decision: the document speaks to this point itself, and allows both behaviours.
    change:
      'identical send, reply and forward requests by one key within ten minutes answer the email the first one made (201, same id) instead of making another',
    allowedBy: [
      {
        section: '§4.3',
        quote:
          'Send has no idempotency guarantee; a retry after an ambiguous timeout or transport error may produce a duplicate email.',
      },
      { section: '§4.7', quote: 'No idempotency guarantee.' },
    ],
    note: 'No guarantee is not a promise of duplicates: a service that deduplicates keeps every sentence, so the suite must pass it without a warning.',
    edits: [
      {
        file: SENDING,
        find: 'const origin = (c: Context) => new URL(c.req.url).origin;',
        replace: `const origin = (c: Context) => new URL(c.req.url).origin;
  const recent = new Map<string, { id: string; at: number }>();
  /** The email an identical request by the same key made in the last ten minutes, else a new one. */
  const once = async (c: Context<ApiEnv>, body: unknown, make: () => Promise<Email>) => {
    const request = \`\${c.get('access').key.id} \${c.req.path} \${JSON.stringify(body)}\`;
    const seen = recent.get(request);
    const earlier = seen !== undefined && Date.now() - seen.at < 600_000 ? store.emails.get(seen.id) : undefined;
    if (earlier !== undefined) return earlier;
    const sent = await make();
    recent.set(request, { id: sent.id, at: Date.now() });
    return sent;
  };`,
      },
      {
        file: SENDING,
        find: "return created(c, await sender.send(c.get('access'), body, origin(c)));",
        replace:
          "return created(c, await once(c, body, () => sender.send(c.get('access'), body, origin(c))));",
      },
      {
        file: SENDING,
        find: "return created(c, await sender.reply(c.get('access'), original, body, origin(c)));",
        replace:
          "return created(c, await once(c, body, () => sender.reply(c.get('access'), original, body, origin(c))));",
      },
      {
        file: SENDING,
        find: "return created(c, await sender.forward(c.get('access'), original, body, origin(c)));",
        replace:
          "return created(c, await once(c, body, () => sender.forward(c.get('access'), original, body, origin(c))));",
      },
    ],
  },
];
