/** Named mutants caught by sending, templates and generated-inputs checks. */
import type { NamedMutant } from '../named-mutant.ts';

const SEND_SERVICE = 'emulator/src/services/send-service.ts';
const VALIDATOR = 'emulator/src/http/request-validator.ts';
const TEMPLATES = 'emulator/src/domain/templates.ts';

/** The generated-inputs checks' names, per operation. */
const accepts = (operationId: string, status: number) =>
  `generated inputs: ${operationId} accepts every valid request, edge values and odd Unicode included, with ${status} and a spec-valid answer`;
const refuses = (operationId: string) =>
  `generated inputs: ${operationId} refuses every invalid request with a 4xx naming the expected code and field, changes nothing, never a 5xx`;

/** conformance/checks/sending.check.ts */
const SENDING_CHECKS: NamedMutant[] = [
  {
    id: 'M-100',
    rule: 'D-21',
    bug: 'the Location of a sent email leaves out the /openapi/v1 base path, so it reads nothing',
    file: 'emulator/src/routes/sending.ts',
    find: 'const location = `${base.origin}/openapi/v1/emails/${encodeURIComponent(sent.id)}`;',
    replace: 'const location = `${base.origin}/emails/${encodeURIComponent(sent.id)}`;',
    caughtBy:
      'answers 201 with the sent copy and a Location that reads it, files it in sent, and accepts from in display-name form',
  },
  {
    id: 'M-101',
    rule: '4.3-R6',
    bug: 'the display name given in from is dropped in favour of the mailbox’s own display name',
    file: SEND_SERVICE,
    find: 'from: { address: mailbox.address, name: from.name ?? mailbox.displayName },',
    replace: 'from: { address: mailbox.address, name: mailbox.displayName },',
    caughtBy:
      'answers 201 with the sent copy and a Location that reads it, files it in sent, and accepts from in display-name form',
  },
  {
    id: 'M-102',
    rule: 'D-11',
    bug: 'the address pattern lets the domain have no dot, so someone@localhost is accepted',
    file: 'emulator/src/domain/addresses.ts',
    find: 'const DOMAIN = `${LABEL}(?:\\\\.${LABEL})+`;',
    replace: 'const DOMAIN = `${LABEL}(?:\\\\.${LABEL})*`;',
    caughtBy:
      'takes exactly one to address and arrays of cc and bcc, refusing anything else with the field named',
  },
  {
    id: 'M-103',
    rule: '4.3-R1',
    bug: 'a request with no body field is answered missing_field instead of body_required',
    file: 'emulator/src/domain/message-body.ts',
    find: "throw new ApiError('body_required',",
    replace: "throw new ApiError('missing_field',",
    caughtBy:
      'requires exactly one of markdown, html and text: none is body_required, two or three body_conflict',
  },
  {
    id: 'M-104',
    rule: 'D-10',
    bug: 'recipients are counted after removing duplicates, so the same address 51 times is accepted',
    file: SEND_SERVICE,
    find: "['cc', draft.cc.length],\n      ['bcc', draft.bcc.length],",
    replace:
      "['cc', uniqueAddresses(draft.cc).length],\n      ['bcc', uniqueAddresses(draft.bcc).length],",
    caughtBy:
      'accepts 50 combined recipients and refuses 51 with too_many_recipients naming the list, duplicates counted',
  },
  {
    id: 'M-105',
    rule: '8-R1',
    bug: 'the combined recipient limit is compared with >= instead of >: exactly 50 recipients are refused',
    file: 'emulator/src/domain/recipients.ts',
    find: 'if (total > MAX_RECIPIENTS) {',
    replace: 'if (total >= MAX_RECIPIENTS) {',
    caughtBy:
      'accepts 50 combined recipients and refuses 51 with too_many_recipients naming the list, duplicates counted',
  },
  {
    id: 'M-106',
    rule: 'D-9',
    bug: 'the rendered subject is measured in UTF-16 units, so 998 astral characters count as 1996 and are refused',
    file: SEND_SERVICE,
    find: 'if ([...subject].length > 998)',
    replace: 'if (subject.length > 998)',
    caughtBy:
      'accepts a 998-character subject and refuses 999 with subject_too_long, counting an astral character once',
  },
  {
    id: 'M-107',
    rule: 'D-26',
    bug: 'a from mailbox of another owner is refused with a message saying it belongs to someone else, revealing that it exists',
    file: SEND_SERVICE,
    find: '`No mailbox ${quoteForMessage(from.address)} is available to this key.`,',
    replace:
      'this.store.directory.getMailbox(from.address) === undefined ? `No mailbox ${quoteForMessage(from.address)} is available to this key.` : `${from.address} belongs to another owner.`,',
    caughtBy:
      'refuses a from mailbox outside the key exactly like one that does not exist: 404 mailbox_not_found, field from',
  },
  {
    id: 'M-108',
    rule: 'D-31',
    bug: 'of several unknown fields the first in request order is named, not the first in code-unit order',
    file: VALIDATOR,
    find: '.map((e) => fieldPath(e.instancePath, String(e.params.additionalProperty)))\n    .sort();',
    replace: '.map((e) => fieldPath(e.instancePath, String(e.params.additionalProperty)));',
    caughtBy: 'refuses unknown body fields with unknown_field and a non-JSON Content-Type with 415',
  },
  {
    id: 'M-109',
    rule: 'D-28',
    bug: 'application/json with a charset parameter is refused with 415',
    file: 'emulator/src/http/json-body.ts',
    find: 'return /^application\\/json\\s*(;.*)?$/i.test(',
    replace: 'return /^application\\/json$/i.test(',
    caughtBy: 'refuses unknown body fields with unknown_field and a non-JSON Content-Type with 415',
  },
  {
    id: 'M-110',
    rule: '4.3-R5',
    bug: 'send answers an identical send with the first email from a cache keyed by the request body, but sends and stores the second anyway: the sent folder holds an email no answer names',
    file: 'emulator/src/routes/sending.ts',
    find: "  app.post('/send', async (c) => {\n    const body = await read(c, 'SendEmailRequest');\n    return created(c, await sender.send(c.get('access'), body, origin(c)));",
    replace:
      "  const recent = new Map<string, Email>();\n  app.post('/send', async (c) => {\n    const body = await read(c, 'SendEmailRequest');\n    const key = JSON.stringify(body);\n    const sent = await sender.send(c.get('access'), body, origin(c));\n    const first = recent.get(key) ?? sent;\n    recent.set(key, first);\n    return created(c, first);",
    caughtBy:
      'answers an identical send again with 201 and a sent copy, making one email or two, never more: no idempotency guarantee either way',
  },
  {
    id: 'M-111',
    rule: '4.3-R5',
    bug: 'the ambiguous 504 is raised before the transaction, so the email never exists after a gateway timeout',
    file: SEND_SERVICE,
    find: "if (fault?.mode === 'error') throw faultError(fault);",
    replace: 'if (fault !== undefined) throw faultError(fault);',
    caughtBy:
      'after an ambiguous 504 the email exists and a retry makes at most one more; a 502/503 stores and sends nothing',
  },
  {
    id: 'M-112',
    rule: 'D-47',
    bug: 'an armed 502/503 is raised only after the commit, like the timeout, so the email is stored and sent',
    file: SEND_SERVICE,
    find: "if (fault?.mode === 'error') throw faultError(fault);",
    replace: "if (fault?.mode === 'error') fault.mode = 'timeout-after-commit';",
    caughtBy:
      'after an ambiguous 504 the email exists and a retry makes at most one more; a 502/503 stores and sends nothing',
  },
  {
    id: 'M-113',
    rule: 'D-48',
    bug: 'each local recipient’s copy keeps the bcc list, leaking bcc recipients to everyone',
    file: SEND_SERVICE,
    find: 'read: false,\n              bcc: [],',
    replace: 'read: false,\n              bcc: draft.bcc,',
    caughtBy:
      'delivers a copy to each local recipient (unread, bcc hidden), keeps bcc on the sender’s copy, and hands external recipients the real message without a Bcc header',
  },
  {
    id: 'M-114',
    rule: '4.3-R8',
    bug: 'bcc recipients are written into the Cc header of the message handed to external recipients',
    file: SEND_SERVICE,
    find: 'cc: draft.cc,\n        subject,',
    replace: 'cc: [...draft.cc, ...draft.bcc],\n        subject,',
    caughtBy:
      'delivers a copy to each local recipient (unread, bcc hidden), keeps bcc on the sender’s copy, and hands external recipients the real message without a Bcc header',
  },
  {
    id: 'M-115',
    rule: '4.3-R4',
    bug: 'only to and cc are checked against suppressions: a suppressed bcc recipient is sent to',
    file: SEND_SERVICE,
    find: 'for (const recipient of [...draft.to, ...draft.cc, ...draft.bcc]) {',
    replace: 'for (const recipient of [...draft.to, ...draft.cc]) {',
    caughtBy:
      'refuses a suppressed recipient in to, cc or bcc with 422 recipient_suppressed naming it, storing and sending nothing, until the suppression is lifted',
  },
  {
    id: 'M-116',
    rule: '4.3-R10',
    bug: 'the plain-text part of a Markdown body is the Markdown source itself, raw HTML and script included',
    file: 'emulator/src/mime/render-body.ts',
    find: "text = steps.htmlToPlainText(bodyHtml ?? '');",
    replace: 'text = fill(job.markdown);',
    caughtBy:
      'renders Markdown to HTML with its elements and a plain-text part, with no script surviving',
  },
  {
    id: 'M-117',
    rule: '4.3-R10',
    bug: 'the sanitizer checks URL schemes on src and cite only, so <a href="javascript:…"> survives Markdown',
    file: 'emulator/src/domain/markdown.ts',
    find: "allowedSchemes: ['http', 'https', 'mailto'],",
    replace:
      "allowedSchemes: ['http', 'https', 'mailto'],\n  allowedSchemesAppliedToAttributes: ['src', 'cite'],",
    caughtBy:
      'never lets a script element, event handler or script URL survive Markdown rendering, for generated mixes of known vectors',
  },
  {
    id: 'M-118',
    rule: '4.3-R11',
    bug: 'line breaks of an HTML body are normalised to CRLF before storing and sending',
    file: SEND_SERVICE,
    find: 'html = draft.large.html ?? draft.body.source; // §2.6: variables never apply to raw HTML',
    replace: "html = draft.large.html ?? draft.body.source.replace(/\\r?\\n/g, '\\r\\n');",
    caughtBy: 'sends an HTML body as-is, byte for byte',
  },
  {
    id: 'M-119',
    rule: '4.3-R12',
    bug: 'a missing break lets a text body fall through to the HTML case: it is sent as the HTML part, with no text part',
    file: SEND_SERVICE,
    find: "html = null;\n        break;\n      case 'html':",
    replace: "html = null;\n      // falls through\n      case 'html':",
    caughtBy: 'stores a text body as the plain-text part, with no HTML part',
  },
  {
    id: 'M-120',
    rule: 'D-8',
    bug: 'the hidden preheader in the HTML part is the template, its variables not filled in',
    file: 'emulator/src/mime/render-body.ts',
    find: 'withPreheader(bodyHtml, preheader) : bodyHtml;',
    replace: 'withPreheader(bodyHtml, decoded(job.preheader?.template ?? preheader)) : bodyHtml;',
    caughtBy:
      'puts the preheader, variables filled in, hidden at the start of the HTML part and returns it as preheader',
  },
];

/** conformance/checks/templates.check.ts */
const TEMPLATE_CHECKS: NamedMutant[] = [
  {
    id: 'M-121',
    rule: '2.6-R1',
    bug: 'falsy variable values (0 and false) render as an empty string',
    file: TEMPLATES,
    find: 'Object.hasOwn(values, name) ? String(values[name]) : whole,',
    replace: "Object.hasOwn(values, name) ? String(values[name] || '') : whole,",
    caughtBy:
      'fills {{name}} in the subject, preheader, text and Markdown, with spaces inside the braces, numbers and booleans as written',
  },
  {
    id: 'M-122',
    rule: '2.6-R3',
    bug: 'variables are filled in raw HTML bodies too',
    file: SEND_SERVICE,
    find: 'html = draft.large.html ?? draft.body.source; // §2.6: variables never apply to raw HTML',
    replace: 'html = renderTemplate(draft.body.source, values);',
    caughtBy:
      'leaves {{name}} in a raw HTML body as written, and never asks for variables it contains',
  },
  {
    id: 'M-123',
    rule: '2.6-R4',
    bug: 'every local recipient’s copy is the rendering made for to, so {{email}} shows the to address to cc and bcc',
    file: SEND_SERVICE,
    find: 'const rendered = personal ? (renderings.get(recipient.address) as Rendered) : primary;',
    replace: 'const rendered = primary;',
    caughtBy:
      'renders {{email}} and {{unsubscribe_url}} for each recipient: each local copy and each external message shows its own',
  },
  {
    id: 'M-124',
    rule: '2.6-R1',
    bug: 'variables that are not a map (a string, an array) or have a bad name get invalid_field instead of invalid_variable',
    file: VALIDATOR,
    find: "if (field === 'variables' || field.startsWith('variables.')) {",
    replace: "if (field.startsWith('variables.')) {",
    caughtBy:
      'refuses variable values that are objects, arrays or null, and names outside [A-Za-z_][A-Za-z0-9_]{0,63}, with invalid_variable',
  },
  {
    id: 'M-125',
    rule: '2.6-R5',
    bug: 'reserved variables supplied by the caller are silently overridden per recipient instead of refused',
    file: SEND_SERVICE,
    find: '    checkCallerVariables(draft.variables);\n',
    replace: '',
    caughtBy:
      'refuses email and unsubscribe_url supplied as variables with reserved_variable, used or not',
  },
  {
    id: 'M-126',
    rule: '4.3-R3',
    bug: 'variables used in the preheader are not checked, so a missing one is sent as {{name}}',
    file: SEND_SERVICE,
    find: '      draft.preheader === undefined ? [] : variablesUsed(draft.preheader),\n      body,\n    ];',
    replace: '      body,\n    ];',
    caughtBy:
      'refuses a variable used in the subject, preheader, text or Markdown but not supplied with missing_variable, storing and sending nothing',
  },
  {
    id: 'M-127',
    rule: '2.6-R2',
    bug: 'rendering replaces with a non-global pattern, so only the first placeholder of each template is filled',
    file: TEMPLATES,
    find: 'return template.replace(PLACEHOLDER, (whole, name: string) =>',
    replace: 'return template.replace(new RegExp(PLACEHOLDER.source), (whole, name: string) =>',
    caughtBy:
      'renders generated templates exactly as a naive replace does, and names a missing variable when one is used but not supplied',
  },
];

/** conformance/checks/generated-inputs.check.ts */
const GENERATED_INPUT_CHECKS: NamedMutant[] = [
  {
    id: 'M-128',
    rule: 'D-11',
    bug: 'the local-part character class leaves out { | } ~, so valid dot-atom addresses such as a|b@x.test are refused',
    file: 'emulator/src/domain/addresses.ts',
    find: 'const ATEXT = "[A-Za-z0-9!#$%&\'*+/=?^_`{|}~-]+";',
    replace: 'const ATEXT = "[A-Za-z0-9!#$%&\'*+/=?^_`-]+";',
    caughtBy: accepts('sendEmail', 201),
  },
  {
    id: 'M-129',
    rule: '4.3-R2',
    bug: 'bcc over its 50 items is answered invalid_field instead of the limit’s too_many_recipients',
    file: VALIDATOR,
    find: "  'maxItems bcc': 'too_many_recipients',\n",
    replace: '',
    caughtBy: refuses('sendEmail'),
  },
  {
    id: 'M-130',
    rule: '4.7-R3',
    bug: 'a reply looks up its attachmentIds as uploads of the mailbox instead of the key’s owner, so every one is attachment_not_found',
    file: SEND_SERVICE,
    find: '...replyThreading(original),\n        attachments: this.uploads(access, request.attachmentIds),',
    replace:
      '...replyThreading(original),\n        attachments: this.attachments.resolve(mailbox.address, request.attachmentIds ?? []),',
    caughtBy: accepts('replyToEmail', 201),
  },
  {
    id: 'M-131',
    rule: '4.3-R1',
    bug: 'a reply without markdown, html or text is sent with an empty text body instead of refused with body_required',
    file: SEND_SERVICE,
    find: "const request = checked as RequestBody<'ReplyRequest'>;\n    const given = pickBody(request) as GivenBody;",
    replace:
      "const request = checked as RequestBody<'ReplyRequest'>;\n    const given = pickBody(request, { optional: true }) ?? { kind: 'text' as const, source: '' };",
    caughtBy: refuses('replyToEmail'),
  },
  {
    id: 'M-132',
    rule: '4.8-R3',
    bug: 'a forward takes attachmentIds as ids of the original’s attachments and refuses uploads with attachment_not_found',
    file: SEND_SERVICE,
    within: 'forward',
    find: '            : this.uploads(access, request.attachmentIds),',
    replace:
      "            : request.attachmentIds.map((id, i) => {\n                const kept = original.attachments.find((a) => a.id === id);\n                if (kept === undefined)\n                  throw new ApiError('attachment_not_found', `No attachment ${id} in the original.`, `attachmentIds[${i}]`);\n                return this.originalAttachments({ ...original, attachments: [kept] })[0]!;\n              }),",
    caughtBy: accepts('forwardEmail', 201),
  },
  {
    id: 'M-133',
    rule: '4.3-R2',
    bug: 'cc over its 50 items is answered invalid_field instead of the limit’s too_many_recipients',
    file: VALIDATOR,
    find: "  'maxItems cc': 'too_many_recipients',\n",
    replace: '',
    caughtBy: refuses('forwardEmail'),
  },
  {
    id: 'M-134',
    rule: 'D-20',
    bug: 'PATCH answers with the email as it was before the update',
    file: 'emulator/src/routes/emails.ts',
    find: 'return c.json(emailDetail(changed as Email));',
    replace: 'return c.json(emailDetail(email));',
    caughtBy: accepts('updateEmail', 200),
  },
  {
    id: 'M-135',
    rule: 'D-5',
    bug: 'an unknown folder in PATCH is answered invalid_field instead of invalid_folder',
    file: VALIDATOR,
    find: "if (error.keyword === 'enum' && field === 'folder') {",
    replace: "if (error.keyword === 'enum' && field === 'folders') {",
    caughtBy: refuses('updateEmail'),
  },
  {
    id: 'M-136',
    rule: '4.2-R1',
    bug: 'the mailbox parameter is compared case-sensitively, so BOX0@… is answered 404 mailbox_not_found',
    file: 'emulator/src/domain/list-query.ts',
    find: 'const filter: EmailFilter = { mailbox: mailbox.toLowerCase() };',
    replace: 'const filter: EmailFilter = { mailbox };',
    caughtBy: accepts('listEmails', 200),
  },
  {
    id: 'M-137',
    rule: 'D-15',
    bug: 'a limit above 100 is quietly clamped to 100 instead of refused with limit_too_large',
    file: 'emulator/src/domain/list-query.ts',
    find: "throw new ApiError('limit_too_large', `limit must be at most ${MAX_PAGE_SIZE}.`, 'limit');",
    replace: 'return MAX_PAGE_SIZE;',
    caughtBy: refuses('listEmails'),
  },
  {
    id: 'M-138',
    rule: '4.9-R2',
    bug: 'the upload’s name is made ASCII-only when stored, so the answer names a file other than the one sent',
    file: 'emulator/src/routes/attachments.ts',
    find: "name: file.name === '' ? 'upload' : file.name,",
    replace: "name: file.name === '' ? 'upload' : file.name.replace(/[^\\x20-\\x7e]/g, '_'),",
    caughtBy: accepts('uploadAttachment', 201),
  },
  {
    id: 'M-139',
    rule: '8-R8',
    bug: 'the empty-file check compares the size with < 0, so an empty file is stored',
    file: 'emulator/src/routes/attachments.ts',
    find: 'if (file.size === 0)',
    replace: 'if (file.size < 0)',
    caughtBy: refuses('uploadAttachment'),
  },
];

export const SENDING: readonly NamedMutant[] = [
  ...SENDING_CHECKS,
  ...TEMPLATE_CHECKS,
  ...GENERATED_INPUT_CHECKS,
];
