/**
 * Named mutants caught by attachments, authorization, bad-input, email-state, listing and
 * shapes checks.
 */
import type { NamedMutant } from '../named-mutant.ts';

const ATTACHMENTS = {
  bytes: 'stores any upload byte for byte and serves it by id and by its public URL without a key',
  unguessable: 'makes public URLs unguessable: a changed token serves nothing',
  oneFile:
    'refuses an upload without exactly one non-empty file in the field file, naming the field',
  reuse:
    "reuses one upload in many sends; each message exposes its own attachment ids, whose bytes are the upload's",
  twenty: 'accepts 20 uploaded files in one email and refuses 21 with too_many_attachments',
  threeMiB:
    'accepts exactly 3 MiB of raw attachment data and refuses one byte more, pointing to the url',
  fiveMiB:
    'accepts an encoded message within 1 KiB under 5 MiB and refuses one within 1 KiB over, measured on the .eml sent',
  owner:
    "lets any key of the uploading owner reuse an upload, and no key of another owner see it or the message's files",
  noCap:
    'puts no application cap on uploads (6 MiB accepted) but refuses a request above the platform limit with 413',
};

const DECIDED_SHAPES = {
  records: 'names the list page, its emails and the email detail as decided',
  upload: 'answers an upload 201 with the media type of its file part',
};

const AUTHORIZATION = {
  scopes:
    "lets each scope touch exactly its owner's granted mailboxes, narrowed, and answers the rest like missing ones",
  revoked:
    "follows the owner's grants at once: a revoked grant disappears from every scope on the next request",
  disabled:
    'refuses a disabled key, or any key of a disabled owner, on the very next request, and accepts them again once enabled',
  disabledGiven: 'refuses a disabled key, and a key of a disabled owner, on every operation tried',
  bearer:
    'authenticates only with Authorization: Bearer, never a key in the query string or another header',
};

/** A disabled owner's key, then a disabled key, still authenticating: as `ids`, caught by `caughtBy`. */
function disabledKeyMutants(ids: [string, string], caughtBy: string): NamedMutant[] {
  return [
    {
      id: ids[0],
      rule: '2.1-R5',
      bug: "a key whose owner is disabled still authenticates: only the key's own flag is checked",
      file: 'emulator/src/http/auth.ts',
      within: 'requireApiKey',
      find: `      owner === undefined ||
      owner.disabled
`,
      replace: `      owner === undefined
`,
      caughtBy,
    },
    {
      id: ids[1],
      rule: '5-R4',
      bug: 'a disabled key still authenticates: the disabled flag is not checked',
      file: 'emulator/src/http/auth.ts',
      find: `      found.key.disabled ||
`,
      replace: '',
      caughtBy,
    },
  ];
}

const BAD_INPUT = {
  anyQuery: 'answers any generated query string with 200 or a 4xx naming the field, never a 5xx',
  booleans: 'accepts exactly true and false for read and starred',
  mailbox: 'requires the mailbox parameter',
  folderAndText:
    'refuses an unknown folder and an empty from or subject with 400 naming the parameter',
  dates:
    'refuses a malformed dateFrom or dateTo, or dateTo before dateFrom, with 400 invalid_field naming it, and takes dateTo equal to dateFrom as an empty range',
  limit: 'refuses a limit below 1 or not an integer with 400 invalid_field naming limit',
  cursor:
    'refuses a made-up cursor, or a nextCursor with a character outside base64url added, with 400 invalid_cursor naming cursor',
};

const EMAIL_STATE = {
  detail: 'returns detail with attachment ids and never changes the read flag by reading',
  patch:
    'applies PATCH of folder, read and starred to detail and list, and answers with the updated email',
  trash: 'keeps an email moved to trash recoverable, and refuses an unknown folder',
  flagsKept:
    'keeps the read and starred flags when a PATCH moves an email to trash and back without naming them',
  refusals:
    'refuses an empty PATCH, unknown fields, wrong types, malformed JSON and a non-JSON Content-Type, changing nothing',
  delete:
    'deletes permanently: 204 with no body, then 404 email_not_found for read, update, delete and gone from lists',
};

const LISTING = {
  model: 'filters, searches, orders and pages every generated mailbox exactly as the model does',
  pageSize:
    'pages 25 by default and at most 100 on request, over 101 emails the run sends itself, and refuses limit 101 with limit_too_large',
  walk: 'walks every email once, with no duplicate and no gap, while new mail arrives between pages',
  cursor: 'refuses a cursor that was altered or belongs to other filters with 400 invalid_cursor',
  ownMail:
    "finds the run's own mail by every filter and by free text, wherever the target filed it",
};

const SHAPES = {
  envelope:
    'returns results directly: an array of mailboxes, an email object, a page object, no envelope',
  timestamps: 'writes every timestamp as ISO 8601, and ids and cursors as opaque strings',
  keyName: 'keeps the name a key was created with, identifying its application',
};

export const ACCESS_AND_READING: readonly NamedMutant[] = [
  // ── attachments.check.ts ──────────────────────────────────────────────────────────────
  {
    id: 'M-1',
    rule: '8-R5',
    bug: 'raw attachment bytes are compared with >= instead of >: exactly 3 MiB is refused',
    file: 'emulator/src/services/send-service.ts',
    find: 'if (bytes > MAX_ATTACHMENT_BYTES) {',
    replace: 'if (bytes >= MAX_ATTACHMENT_BYTES) {',
    caughtBy: ATTACHMENTS.threeMiB,
  },
  {
    id: 'M-2',
    rule: '4.10-R1',
    bug: 'the upload route reads the multipart file as text, so binary bytes are stored corrupted',
    file: 'emulator/src/routes/attachments.ts',
    find: 'bytes: new Uint8Array(await file.arrayBuffer()),',
    replace: 'bytes: new TextEncoder().encode(await file.text()),',
    caughtBy: ATTACHMENTS.bytes,
  },
  {
    id: 'M-3',
    rule: '2.4-R2',
    bug: 'the upload keeps an ASCII-only copy of the file name, so a non-ASCII name is answered changed',
    file: 'emulator/src/routes/attachments.ts',
    find: "name: file.name === '' ? 'upload' : file.name,",
    replace: "name: file.name === '' ? 'upload' : file.name.replace(/[^\\x20-\\x7e]/g, '_'),",
    caughtBy: ATTACHMENTS.bytes,
  },
  {
    id: 'M-4',
    rule: '4.10-R1',
    bug: 'downloads are always served as application/octet-stream instead of the media type of the file',
    file: 'emulator/src/routes/attachments.ts',
    find: "'Content-Type': file.contentType,",
    replace: "'Content-Type': 'application/octet-stream',",
    caughtBy: ATTACHMENTS.bytes,
  },
  {
    id: 'M-5',
    rule: '2.4-R3',
    bug: 'the public URL token is 16 base62 characters (95 bits), short of the 128 bits an unguessable URL needs',
    file: 'emulator/src/services/upload-service.ts',
    find: 'urlToken: this.ids.secret(32),',
    replace: 'urlToken: this.ids.secret(16),',
    caughtBy: ATTACHMENTS.unguessable,
  },
  {
    id: 'M-6',
    rule: '8-R8',
    bug: 'an empty file is accepted as an upload instead of refused with file_empty',
    file: 'emulator/src/routes/attachments.ts',
    find: 'if (file.size === 0)',
    replace: 'if (file.size < 0)',
    caughtBy: ATTACHMENTS.oneFile,
  },
  {
    id: 'M-7',
    rule: '4.9-R1',
    bug: 'an upload with two files in the field file silently stores the first instead of refusing too_many_files',
    file: 'emulator/src/routes/attachments.ts',
    find: "const entries = form.getAll('file');",
    replace: "const entries = form.getAll('file').slice(0, 1);",
    caughtBy: ATTACHMENTS.oneFile,
  },
  {
    id: 'M-8',
    rule: '2.3-R5',
    bug: 'the sent copy is answered before its attachments are listed: the 201 detail has attachmentCount but no attachment ids',
    file: 'emulator/src/services/send-service.ts',
    find: `      attachments: attachments.map(({ id, name, contentType, bytes }) => ({
        id,
        name,
        contentType,
        size: bytes.length,
      })),`,
    replace: '      attachments: [],',
    caughtBy: ATTACHMENTS.reuse,
    hiddenBy: {
      entry: '/operations/sendEmail/answer',
      reason:
        'the empty list is only in the sent copy send answers with (stored copies keep their attachments); a send answered with a reference carries no copy, and the suite reads the stored one',
    },
  },
  {
    id: 'M-9',
    rule: '8-R4',
    bug: 'the file count is compared with >= instead of >: 20 files are refused with too_many_attachments',
    file: 'emulator/src/services/send-service.ts',
    find: 'if (draft.attachments.length > MAX_ATTACHMENTS) {',
    replace: 'if (draft.attachments.length >= MAX_ATTACHMENTS) {',
    caughtBy: ATTACHMENTS.twenty,
  },
  {
    id: 'M-10',
    rule: '8-R4',
    bug: "the spec's maxItems on attachmentIds is mapped under the wrong field, so 21 files get invalid_field instead of too_many_attachments",
    file: 'emulator/src/http/request-validator.ts',
    find: "'maxItems attachmentIds': 'too_many_attachments',",
    replace: "'maxItems attachments': 'too_many_attachments',",
    caughtBy: ATTACHMENTS.twenty,
  },
  {
    id: 'M-11',
    rule: 'D-41',
    bug: '3 MiB is counted as 3,000,000 bytes (MB, not MiB): exactly 3,145,728 raw bytes are refused',
    file: 'emulator/src/services/send-service.ts',
    find: 'export const MAX_ATTACHMENT_BYTES = 3 * 1024 * 1024;',
    replace: 'export const MAX_ATTACHMENT_BYTES = 3 * 1000 * 1000;',
    caughtBy: ATTACHMENTS.threeMiB,
  },
  {
    id: 'M-12',
    rule: '8-R9',
    bug: "attachments_too_large does not tell the caller to put the upload's url in the body instead",
    file: 'emulator/src/services/send-service.ts',
    find: "For larger files, put the upload's url in the body instead of its id (§8).",
    replace: 'Send fewer or smaller files.',
    caughtBy: ATTACHMENTS.threeMiB,
  },
  {
    id: 'M-13',
    rule: '8-R6',
    bug: '5 MiB is counted as 5,000,000 bytes (MB, not MiB): a message just under 5 MiB is refused',
    file: 'emulator/src/services/send-service.ts',
    find: 'export const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;',
    replace: 'export const MAX_MESSAGE_BYTES = 5 * 1000 * 1000;',
    caughtBy: ATTACHMENTS.fiveMiB,
  },
  {
    id: 'M-14',
    rule: 'D-32',
    bug: 'GET /attachments/{id} serves any upload by id without checking that it belongs to the key’s owner',
    file: 'emulator/src/services/upload-service.ts',
    find: 'if (upload !== undefined && upload.upload.ownerId === access.owner.id) {',
    replace: 'if (upload !== undefined) {',
    caughtBy: ATTACHMENTS.owner,
  },
  {
    id: 'M-15',
    rule: 'D-32',
    bug: 'attachmentIds resolve any upload by id, so another owner can send a stranger’s upload',
    file: 'emulator/src/services/upload-service.ts',
    find: 'if (found === undefined || found.upload.ownerId !== ownerId) {',
    replace: 'if (found === undefined) {',
    caughtBy: ATTACHMENTS.owner,
  },
  {
    id: 'M-16',
    rule: 'D-26',
    bug: 'a message attachment is served to any key, without checking that its mailbox is in the key’s scope',
    file: 'emulator/src/services/upload-service.ts',
    find: 'if (attached !== undefined && access.mailboxes.has(attached.mailbox)) {',
    replace: 'if (attached !== undefined) {',
    caughtBy: ATTACHMENTS.owner,
  },
  {
    id: 'M-17',
    rule: '4.9-R3',
    bug: 'uploads are capped at the 5 MiB message limit, so a 6 MiB upload is refused',
    file: 'emulator/src/services/upload-service.ts',
    find: `  create(ownerId: string, file: IncomingFile, fixedId?: string): Upload {
`,
    replace: `  create(ownerId: string, file: IncomingFile, fixedId?: string): Upload {
    if (file.bytes.length > 5 * 1024 * 1024)
      throw new ApiError('attachments_too_large', 'An upload may hold at most 5 MiB.', 'file');
`,
    caughtBy: ATTACHMENTS.noCap,
  },
  {
    id: 'M-18',
    rule: 'D-27',
    bug: 'a body above the platform limit is answered 400 message_too_large instead of 413 request_too_large',
    file: 'emulator/src/app.ts',
    find: `      throw new ApiError(
        'request_too_large',`,
    replace: `      throw new ApiError(
        'message_too_large',`,
    caughtBy: ATTACHMENTS.noCap,
  },

  // ── authorization.check.ts ────────────────────────────────────────────────────────────
  {
    id: 'M-19',
    rule: '2.1-R4',
    bug: 'a one-domain key is not narrowed to its domain: it touches every mailbox its owner is granted',
    file: 'emulator/src/domain/access.ts',
    find: "case 'one-domain':\n      return new Set(ownerGrants.filter((g) => g.domain === key.domain).map((g) => g.address));",
    replace: "case 'one-domain':\n      return new Set(ownerGrants.map((g) => g.address));",
    caughtBy: AUTHORIZATION.scopes,
  },
  {
    id: 'M-20',
    rule: '5-R3',
    bug: 'GET /emails checks only that the mailbox exists, not that the key may touch it, so it lists foreign mail',
    file: 'emulator/src/routes/emails.ts',
    find: "if (!c.get('access').mailboxes.has(query.filter.mailbox)) {",
    replace: 'if (store.directory.getMailbox(query.filter.mailbox) === undefined) {',
    caughtBy: AUTHORIZATION.scopes,
  },
  {
    id: 'M-21',
    rule: '2.1-R3',
    bug: 'PATCH /emails/{id} looks the email up by id without checking the key’s scope, so any key can change any email',
    file: 'emulator/src/routes/emails.ts',
    find: `    const email = emailRefInScope(c, store);
    const body = await readJsonObject(c, SMALL_BODY_MAX_BYTES);`,
    replace: `    const email = store.emails.headline(c.req.param('emailId')) ?? emailRefInScope(c, store);
    const body = await readJsonObject(c, SMALL_BODY_MAX_BYTES);`,
    caughtBy: AUTHORIZATION.scopes,
  },
  {
    id: 'M-22',
    rule: 'D-26',
    bug: 'an out-of-scope email is answered 404 with another message than a missing one, revealing that it exists',
    file: 'emulator/src/routes/emails.ts',
    find: "  if (email === undefined || !c.get('access').mailboxes.has(email.mailbox)) {",
    replace: `  if (email !== undefined && !c.get('access').mailboxes.has(email.mailbox))
    throw new ApiError('email_not_found', \`Email \${id} is outside this key's scope.\`, 'emailId');
  if (email === undefined) {`,
    caughtBy: AUTHORIZATION.scopes,
  },
  {
    id: 'M-23',
    rule: 'D-2',
    bug: 'GET /mailboxes orders the mailboxes by address descending instead of ascending',
    file: 'emulator/src/routes/mailboxes.ts',
    find: 'a.address < b.address ? -1 : 1',
    replace: 'a.address < b.address ? 1 : -1',
    caughtBy: AUTHORIZATION.scopes,
  },
  {
    id: 'M-24',
    rule: '2.1-R3',
    bug: "an owner's grants are cached on first use and never invalidated, so a revoked mailbox stays reachable",
    file: 'emulator/src/store/directory-store.ts',
    find: `  grantedMailboxes(ownerId: string): Mailbox[] {
    return (`,
    replace: `  private readonly grantCache = new Map<string, Mailbox[]>();

  grantedMailboxes(ownerId: string): Mailbox[] {
    const cached = this.grantCache.get(ownerId);
    if (cached !== undefined) return cached;
    const fresh = this.loadGrantedMailboxes(ownerId);
    this.grantCache.set(ownerId, fresh);
    return fresh;
  }

  private loadGrantedMailboxes(ownerId: string): Mailbox[] {
    return (`,
    caughtBy: AUTHORIZATION.revoked,
  },
  {
    id: 'M-25',
    rule: '5-R3',
    bug: "a selected-mailbox key reaches the mailboxes it lists even after the owner's grant is revoked",
    file: 'emulator/src/http/auth.ts',
    find: `      mailboxes: new Map(grants.filter((m) => allowed.has(m.address)).map((m) => [m.address, m])),`,
    replace: `      mailboxes: new Map(
        (found.key.scope === 'selected-mailbox'
          ? found.key.mailboxes.flatMap((a) => store.directory.getMailbox(a) ?? [])
          : grants.filter((m) => allowed.has(m.address))
        ).map((m) => [m.address, m]),
      ),`,
    caughtBy: AUTHORIZATION.revoked,
  },
  ...disabledKeyMutants(['M-26', 'M-27'], AUTHORIZATION.disabled),
  // The same two bugs, caught by the check that runs with keys given by role (an API world).
  ...disabledKeyMutants(['M-237', 'M-238'], AUTHORIZATION.disabledGiven),
  {
    id: 'M-239',
    rule: '4.2-R7',
    bug: 'the starred filter is ignored: starred=true lists starred and unstarred mail alike',
    // The page query's filter, for every plan (the SQL filters and the newest plan's in memory).
    file: 'emulator/src/store/page-query.ts',
    within: 'pageQuery',
    find: 'if (filter.starred !== undefined) {',
    replace: 'if (false) {',
    caughtBy: LISTING.ownMail,
  },
  {
    id: 'M-28',
    rule: '5-R2',
    bug: 'the key is also read from the api_key query parameter when no Authorization header is sent',
    file: 'emulator/src/http/auth.ts',
    find: 'const bearer = header === undefined ? undefined : /^Bearer[ ]+(\\S+)\\s*$/i.exec(header)?.[1];',
    replace:
      "const bearer = (header === undefined ? undefined : /^Bearer[ ]+(\\S+)\\s*$/i.exec(header)?.[1]) ?? new URL(c.req.url).searchParams.get('api_key') ?? undefined;",
    caughtBy: AUTHORIZATION.bearer,
  },
  {
    id: 'M-29',
    rule: '5-R1',
    bug: 'the key is also taken from an X-API-Key header when no Authorization header is sent',
    file: 'emulator/src/http/auth.ts',
    find: 'const bearer = header === undefined ? undefined : /^Bearer[ ]+(\\S+)\\s*$/i.exec(header)?.[1];',
    replace:
      "const bearer = header === undefined ? c.req.header('x-api-key') : /^Bearer[ ]+(\\S+)\\s*$/i.exec(header)?.[1];",
    caughtBy: AUTHORIZATION.bearer,
  },
  {
    id: 'M-30',
    rule: 'D-29',
    bug: 'a key is accepted when its public lookup part matches, without comparing the secret itself',
    file: 'emulator/src/http/auth.ts',
    find: `      !matches ||
`,
    replace: '',
    caughtBy: AUTHORIZATION.bearer,
  },

  // ── bad-input.check.ts ────────────────────────────────────────────────────────────────
  {
    id: 'M-31',
    rule: '7-R1',
    bug: 'an unknown query parameter is refused with 400 but the error does not name it in field',
    file: 'emulator/src/domain/list-query.ts',
    find: 'throw new ApiError(\'invalid_field\', `Unknown query parameter "${shown}".`, name);',
    replace: 'throw new ApiError(\'invalid_field\', `Unknown query parameter "${shown}".`);',
    caughtBy: BAD_INPUT.anyQuery,
  },
  {
    id: 'M-32',
    rule: 'D-12',
    bug: 'q is passed to the FTS5 MATCH as written, so punctuation in it is an SQLite syntax error answered 500',
    file: 'emulator/src/domain/search.ts',
    find: "return words.map(({ word, prefix }) => `\"${word}\"${prefix ? '*' : ''}`).join(' ');",
    replace: 'return q;',
    caughtBy: BAD_INPUT.anyQuery,
  },
  {
    id: 'M-33',
    rule: 'D-19',
    bug: 'boolean query parameters are compared case-insensitively, so True is accepted',
    file: 'emulator/src/domain/query-params.ts',
    find: `  if (raw === 'true') return true;
  if (raw === 'false') return false;`,
    replace: `  if (raw.toLowerCase() === 'true') return true;
  if (raw.toLowerCase() === 'false') return false;`,
    caughtBy: BAD_INPUT.booleans,
  },
  {
    id: 'M-34',
    rule: '4.2-R7',
    bug: 'a read or starred value other than true or false is ignored and the list answered unfiltered',
    file: 'emulator/src/domain/list-query.ts',
    find: 'if (value !== undefined) filter[name] = parseBooleanParam(name, value);',
    replace: "if (value === 'true' || value === 'false') filter[name] = value === 'true';",
    caughtBy: BAD_INPUT.booleans,
  },
  {
    id: 'M-35',
    rule: '4.2-R1',
    bug: 'a missing mailbox parameter is looked up as an empty address and answered 404 mailbox_not_found',
    file: 'emulator/src/domain/list-query.ts',
    find: `  if (mailbox === undefined || mailbox === '')
    throw new ApiError('missing_field', 'mailbox is required.', 'mailbox');

  const filter: EmailFilter = { mailbox: mailbox.toLowerCase() };`,
    replace: `  if (mailbox === '') throw new ApiError('missing_field', 'mailbox is required.', 'mailbox');

  const filter: EmailFilter = { mailbox: (mailbox ?? '').toLowerCase() };`,
    caughtBy: BAD_INPUT.mailbox,
  },

  // ── email-state.check.ts ──────────────────────────────────────────────────────────────
  {
    id: 'M-36',
    rule: '4.4-R2',
    bug: 'GET /emails/{id} marks the email read, as a mail client opening it would',
    file: 'emulator/src/routes/emails.ts',
    find: "app.get('/:emailId', (c) => c.json(emailDetail(emailInScope(c, store))));",
    replace: `app.get('/:emailId', (c) => {
    const email = emailInScope(c, store);
    store.emails.update(email.id, { read: true });
    return c.json(emailDetail(email));
  });`,
    caughtBy: EMAIL_STATE.detail,
  },
  {
    id: 'M-37',
    rule: '4.4-R1',
    bug: 'email detail is read without its attachments, so it lists no attachment ids',
    file: 'emulator/src/store/email-store.ts',
    within: 'readEmail',
    find: 'email: toEmail(row, row.attachment_count === 0 ? [] : this.attachmentsOf(id)),',
    replace: 'email: toEmail(row, []),',
    caughtBy: EMAIL_STATE.detail,
  },
  {
    id: 'M-38',
    rule: 'D-20',
    bug: 'PATCH answers the email as it was before the change instead of the updated email',
    file: 'emulator/src/routes/emails.ts',
    find: 'return c.json(emailDetail(changed as Email));',
    replace: 'return c.json(emailDetail(email));',
    caughtBy: EMAIL_STATE.patch,
  },
  {
    id: 'M-39',
    rule: '3.1-R4',
    bug: 'PATCH applies starred only when read is not given too (an else-if chain)',
    file: 'emulator/src/store/email-store.ts',
    find: `    if (changes.starred !== undefined) {
      sets.push('starred = @starred');`,
    replace: `    else if (changes.starred !== undefined) {
      sets.push('starred = @starred');`,
    caughtBy: EMAIL_STATE.patch,
  },
  {
    id: 'M-40',
    rule: '3.1-R2',
    bug: 'an email in trash is treated as final: PATCH answers 200 but never moves it out again',
    file: 'emulator/src/store/email-store.ts',
    within: 'change',
    find: ".get(`UPDATE emails SET ${sets.join(', ')} WHERE id = @id RETURNING folder, read, starred`)",
    replace:
      ".get(`UPDATE emails SET ${sets.join(', ')} WHERE id = @id AND folder != 'trash' RETURNING folder, read, starred`)",
    caughtBy: EMAIL_STATE.trash,
  },
  {
    id: 'M-41',
    rule: 'D-5',
    bug: "the spec's folder enum is mapped to invalid_folder under the wrong field name, so an unknown folder gets invalid_field",
    file: 'emulator/src/http/request-validator.ts',
    find: "if (error.keyword === 'enum' && field === 'folder') {",
    replace: "if (error.keyword === 'enum' && field === 'folders') {",
    caughtBy: EMAIL_STATE.trash,
  },
  {
    id: 'M-42',
    rule: 'D-28',
    bug: 'PATCH parses its body with c.req.json(), skipping the Content-Type check, so text/plain is accepted',
    file: 'emulator/src/routes/emails.ts',
    find: `    const body = await readJsonObject(c, SMALL_BODY_MAX_BYTES);
    validator.check('UpdateEmailRequest', body);`,
    replace: `    const body = (await c.req.json()) as Record<string, unknown>;
    validator.check('UpdateEmailRequest', body);`,
    caughtBy: EMAIL_STATE.refusals,
  },
  {
    id: 'M-43',
    rule: 'D-31',
    bug: 'PATCH sets the read flag before validating the rest of the body, so a refused request still changes the email',
    file: 'emulator/src/routes/emails.ts',
    find: `    validator.check('UpdateEmailRequest', body);
    const changes = body as { folder?: Folder; read?: boolean; starred?: boolean };
    const changed = store.emails.change(email.id, changes);`,
    replace: `    const changes = body as { folder?: Folder; read?: boolean; starred?: boolean };
    if (typeof changes.read === 'boolean') store.emails.update(email.id, { read: changes.read });
    validator.check('UpdateEmailRequest', body);
    const changed = store.emails.change(email.id, changes);`,
    caughtBy: EMAIL_STATE.refusals,
  },
  {
    id: 'M-44',
    rule: 'D-20',
    bug: 'the minProperties error is looked for at the wrong pointer, so an empty PATCH gets invalid_field instead of missing_field',
    file: 'emulator/src/http/request-validator.ts',
    find: "const empty = errors.find((e) => e.keyword === 'minProperties' && e.instancePath === '');",
    replace:
      "const empty = errors.find((e) => e.keyword === 'minProperties' && e.instancePath === '/');",
    caughtBy: EMAIL_STATE.refusals,
  },
  {
    id: 'M-45',
    rule: '4.6-R1',
    bug: 'DELETE moves the email to trash instead of removing it permanently',
    file: 'emulator/src/routes/emails.ts',
    find: `    store.emails.delete(email.id);
    return c.body(null, 204);`,
    replace: `    store.emails.update(email.id, { folder: 'trash' });
    return c.body(null, 204);`,
    caughtBy: EMAIL_STATE.delete,
  },
  {
    id: 'M-46',
    rule: '3.1-R5',
    bug: 'DELETE answers 200 with a JSON confirmation instead of 204 with no body',
    file: 'emulator/src/routes/emails.ts',
    find: `    store.emails.delete(email.id);
    return c.body(null, 204);`,
    replace: `    store.emails.delete(email.id);
    return c.json({ id: email.id, deleted: true }, 200);`,
    caughtBy: EMAIL_STATE.delete,
  },

  // ── listing.check.ts ──────────────────────────────────────────────────────────────────
  {
    id: 'M-47',
    rule: 'D-18',
    bug: 'dateTo is inclusive (<=) instead of exclusive',
    file: 'emulator/src/store/email-store.ts',
    find: "where.push('e.received_at < @receivedBefore');",
    replace: "where.push('e.received_at <= @receivedBefore');",
    caughtBy: LISTING.model,
  },
  {
    id: 'M-48',
    rule: '4.2-R7',
    bug: 'the starred filter compares the read column (a copy-paste slip)',
    file: 'emulator/src/store/email-store.ts',
    find: "where.push('e.starred = @starred');",
    replace: "where.push('e.read = @starred');",
    caughtBy: LISTING.model,
  },
  {
    id: 'M-49',
    rule: 'D-17',
    bug: 'emails received at the same instant are ordered by id ascending instead of descending',
    file: 'emulator/src/store/email-store.ts',
    find: "ORDER BY e.received_at DESC, e.id DESC ${limitOf('@limit')}",
    replace: "ORDER BY e.received_at DESC, e.id ASC ${limitOf('@limit')}",
    caughtBy: LISTING.model,
  },
  {
    id: 'M-50',
    rule: 'D-14',
    bug: 'the subject filter is case-sensitive: the stored subject is not lower-cased for matching',
    file: 'emulator/src/store/email-store.ts',
    find: '          email.subject.toLowerCase(),',
    replace: '          email.subject,',
    caughtBy: LISTING.model,
  },
  {
    id: 'M-51',
    rule: 'D-13',
    bug: 'a trailing * in q is dropped, so a prefix matches only as a whole word',
    file: 'emulator/src/domain/search.ts',
    find: "return words.map(({ word, prefix }) => `\"${word}\"${prefix ? '*' : ''}`).join(' ');",
    replace: 'return words.map(({ word }) => `"${word}"`).join(\' \');',
    caughtBy: LISTING.model,
  },
  {
    id: 'M-52',
    rule: 'D-14',
    bug: "the from filter matches only the sender's address, not the display name",
    file: 'emulator/src/store/email-store.ts',
    find: "`${email.from.name ?? ''}\\u0000${email.from.address}`.toLowerCase(),",
    replace: 'email.from.address.toLowerCase(),',
    caughtBy: LISTING.model,
  },
  {
    id: 'M-53',
    rule: '4.2-R10',
    bug: 'the default page size is 20 instead of 25',
    file: 'emulator/src/domain/list-query.ts',
    find: 'export const DEFAULT_PAGE_SIZE = 25;',
    replace: 'export const DEFAULT_PAGE_SIZE = 20;',
    caughtBy: LISTING.pageSize,
  },
  {
    id: 'M-54',
    rule: '8-R3',
    bug: 'limit is compared with >= 100, so the documented maximum of 100 is refused',
    file: 'emulator/src/domain/list-query.ts',
    find: 'Number(digits) > MAX_PAGE_SIZE',
    replace: 'Number(digits) >= MAX_PAGE_SIZE',
    caughtBy: LISTING.pageSize,
  },
  {
    id: 'M-55',
    rule: 'D-15',
    bug: 'limit above 100 is refused with the generic invalid_field instead of limit_too_large',
    file: 'emulator/src/domain/list-query.ts',
    find: "throw new ApiError('limit_too_large', `limit must be at most ${MAX_PAGE_SIZE}.`, 'limit');",
    replace:
      "throw new ApiError('invalid_field', `limit must be at most ${MAX_PAGE_SIZE}.`, 'limit');",
    caughtBy: LISTING.pageSize,
  },
  {
    id: 'M-56',
    rule: 'D-17',
    bug: 'the keyset cursor compares only receivedAt, so emails sharing the instant of a page end are skipped',
    file: 'emulator/src/store/email-store.ts',
    find: "where.push('(e.received_at < @afterAt OR (e.received_at = @afterAt AND e.id < @afterId))');",
    replace: "where.push('e.received_at < @afterAt');",
    caughtBy: LISTING.walk,
  },
  {
    id: 'M-57',
    rule: '4.2-R13',
    bug: 'the keyset cursor compares ids with <=, so the last email of a page starts the next one again',
    file: 'emulator/src/store/email-store.ts',
    find: "where.push('(e.received_at < @afterAt OR (e.received_at = @afterAt AND e.id < @afterId))');",
    replace:
      "where.push('(e.received_at < @afterAt OR (e.received_at = @afterAt AND e.id <= @afterId))');",
    caughtBy: LISTING.walk,
  },
  {
    id: 'M-58',
    rule: 'D-16',
    bug: 'a cursor is not bound to its filters: one from another query is accepted',
    file: 'emulator/src/domain/list-query.ts',
    find: `  if (boundTo !== fingerprint)
    throw invalid('it belongs to a query with other mailbox or filters.');`,
    replace: `  void boundTo;`,
    caughtBy: LISTING.cursor,
  },
  {
    id: 'M-59',
    rule: 'D-16',
    bug: 'a cursor is bound only to its mailbox, so one used with another folder filter is accepted',
    file: 'emulator/src/domain/list-query.ts',
    find: 'return (this.bound ??= fingerprintOf(this.filter));',
    replace: 'return (this.bound ??= fingerprintOf({ mailbox: this.filter.mailbox }));',
    caughtBy: LISTING.cursor,
  },
  {
    id: 'M-60',
    rule: '4.2-R11',
    bug: 'an unreadable cursor is ignored and the first page answered instead of 400 invalid_cursor',
    file: 'emulator/src/domain/list-query.ts',
    find: 'query.after = cursor === undefined ? undefined : decodeCursor(cursor, query.fingerprint);',
    replace: `try {
    query.after = cursor === undefined ? undefined : decodeCursor(cursor, query.fingerprint);
  } catch {
    query.after = undefined;
  }`,
    caughtBy: LISTING.cursor,
  },

  // ── shapes.check.ts ───────────────────────────────────────────────────────────────────
  {
    id: 'M-61',
    rule: '4-R2',
    bug: 'GET /mailboxes wraps the array in an envelope {mailboxes: [...]}',
    file: 'emulator/src/routes/mailboxes.ts',
    find: `    return c.json(
      mailboxes.map(({ address, domain, displayName }) => ({ address, domain, displayName })),
    );`,
    replace: `    return c.json({
      mailboxes: mailboxes.map(({ address, domain, displayName }) => ({ address, domain, displayName })),
    });`,
    caughtBy: SHAPES.envelope,
    hiddenBy: {
      entry: '/mailboxes/array',
      reason:
        "the bare array is D-2's; a binding that puts the mailbox list under a property declares an envelope itself, and the emulator's edge renders the route's envelope as that property holding an empty list, a fault of another rule (4.1-R1)",
    },
  },
  {
    id: 'M-62',
    rule: '4-R2',
    bug: 'GET /emails/{id} wraps the email in an envelope {data: ...}',
    file: 'emulator/src/routes/emails.ts',
    find: "app.get('/:emailId', (c) => c.json(emailDetail(emailInScope(c, store))));",
    replace: "app.get('/:emailId', (c) => c.json({ data: emailDetail(emailInScope(c, store)) }));",
    caughtBy: SHAPES.envelope,
  },
  {
    id: 'M-63',
    rule: '2.3-R3',
    bug: 'sentAt is written with toUTCString() (an RFC 1123 date) instead of ISO 8601',
    file: 'emulator/src/services/send-service.ts',
    find: 'sentAt: sentAt.toISOString(),',
    replace: 'sentAt: sentAt.toUTCString(),',
    caughtBy: SHAPES.timestamps,
  },
  {
    id: 'M-64',
    rule: '9-R3',
    bug: 'nextCursor is the last position as a JSON object instead of an opaque string',
    file: 'emulator/src/routes/emails.ts',
    find: 'const nextCursor = page.more && last ? encodeCursor(last, query.fingerprint) : null;',
    replace:
      'const nextCursor = page.more && last ? { receivedAt: last.receivedAt, id: last.id, query: query.fingerprint } : null;',
    caughtBy: SHAPES.timestamps,
  },
  {
    id: 'M-65',
    rule: '2.1-R1',
    bug: 'a key name is cut to 16 characters when the key is created',
    file: 'emulator/src/services/directory-service.ts',
    find: `    this.owner(input.ownerId);
    const name = requireText(input.name, 'name', 200);`,
    replace: `    this.owner(input.ownerId);
    const name = requireText(input.name, 'name', 200).slice(0, 16);`,
    caughtBy: SHAPES.keyName,
  },
  {
    id: 'M-66',
    rule: 'D-12',
    bug: 'an empty from or subject filter is ignored instead of refused',
    file: 'emulator/src/domain/list-query.ts',
    within: 'parseListQuery',
    find: "if (value === '') throw new ApiError('invalid_field', `${name} must not be empty.`, name);",
    replace: "if (value === '') continue;",
    caughtBy: BAD_INPUT.folderAndText,
  },
  {
    id: 'M-67',
    rule: 'D-18',
    bug: 'a dateTo earlier than dateFrom is taken as an empty range instead of refused',
    file: 'emulator/src/domain/list-query.ts',
    find: 'filter.receivedBefore < filter.receivedFrom\n',
    replace: 'filter.receivedBefore < filter.receivedFrom &&\n    false\n',
    caughtBy: BAD_INPUT.dates,
  },
  {
    id: 'M-68',
    rule: '4.2-R10',
    bug: 'limit=0 is accepted (as an empty page) instead of refused',
    file: 'emulator/src/domain/list-query.ts',
    find: 'if (!/^\\d+$/.test(raw) || /^0+$/.test(raw)) {',
    replace: 'if (!/^\\d+$/.test(raw)) {',
    caughtBy: BAD_INPUT.limit,
  },
  {
    id: 'M-69',
    rule: 'D-16',
    bug: 'a cursor is decoded without checking its characters, so a nextCursor with junk added still pages on',
    file: 'emulator/src/domain/list-query.ts',
    find: "if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid('pass back nextCursor unchanged.');",
    replace: '',
    caughtBy: BAD_INPUT.cursor,
  },
  {
    id: 'M-70',
    rule: 'D-3',
    bug: 'listed emails leave out their snippet',
    file: 'emulator/src/domain/email-view.ts',
    within: 'emailSummary',
    find: '    snippet: email.snippet,\n',
    replace: '',
    caughtBy: DECIDED_SHAPES.records,
  },
  {
    id: 'M-71',
    rule: 'D-44',
    bug: 'an upload is answered 200 instead of 201',
    file: 'emulator/src/routes/attachments.ts',
    find: 'url: uploads.publicUrl(origin, upload) }, 201);',
    replace: 'url: uploads.publicUrl(origin, upload) }, 200);',
    caughtBy: DECIDED_SHAPES.upload,
  },
  {
    id: 'M-272',
    rule: '3.1-R3',
    bug: 'moving an email to trash without naming read marks it unread',
    file: 'emulator/src/store/email-store.ts',
    find: "sets.push('folder = @folder');",
    replace:
      "sets.push(changes.folder === 'trash' && changes.read === undefined ? 'folder = @folder, read = 0' : 'folder = @folder');",
    caughtBy: EMAIL_STATE.flagsKept,
  },
  {
    id: 'M-273',
    rule: '8-R3',
    bug: 'limit has no maximum: limit=101 is answered with 101 emails',
    file: 'emulator/src/domain/list-query.ts',
    find: 'Number(digits) > MAX_PAGE_SIZE',
    replace: 'Number(digits) > 10 * MAX_PAGE_SIZE',
    caughtBy: LISTING.pageSize,
  },
];
