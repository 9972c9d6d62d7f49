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

const AUTH = 'emulator/src/http/auth.ts';
const APP = 'emulator/src/app.ts';
const SPEC = 'spec/openapi.yaml';
const SENDING_ROUTES = 'emulator/src/routes/sending.ts';

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
];
