/**
 * The statuses and codes the document declares: each operation's success and answer, and each
 * error condition's code and status, read from its responses' `x-error-codes`, the error
 * schema's `code` and the examples.
 */
import type { Binding } from './binding.ts';
import type { InferenceDraft } from './inference-draft.ts';
import { NAMES } from './infer-record.ts';
import { isObject, type Located } from './openapi-walk.ts';

/** Each operation's success status, and what a send, reply or forward answers (D-21). */
export function inferOperations(draft: InferenceDraft): void {
  const operations: [keyof Binding['operations'], string, string][] = [
    ['listMailboxes', 'get', '/mailboxes'],
    ['listEmails', 'get', '/emails'],
    ['getEmail', 'get', '/emails/{emailId}'],
    ['updateEmail', 'patch', '/emails/{emailId}'],
    ['sendEmail', 'post', '/emails/send'],
    ['replyToEmail', 'post', '/emails/{emailId}/reply'],
    ['forwardEmail', 'post', '/emails/{emailId}/forward'],
    ['uploadAttachment', 'post', '/attachments'],
    ['downloadAttachment', 'get', '/attachments/{attachmentId}'],
  ];
  const idField = draft.binding.email.id ?? 'id';
  const recordFields = new Set(
    [draft.binding.email.subject, draft.binding.email.mailbox, draft.binding.email.folder].filter(
      (f): f is string => f !== null,
    ),
  );
  for (const [key, method, path] of operations) {
    const operation = draft.operation(method, path);
    const success = operation && draft.walk.success(operation);
    if (success === undefined) continue;
    const [status, response] = success;
    const entry = { ...draft.binding.operations[key], status };
    if (key === 'sendEmail' || key === 'replyToEmail' || key === 'forwardEmail') {
      const schema = draft.walk.jsonSchema(response);
      const properties =
        schema === undefined ? new Map<string, Located>() : draft.walk.properties(schema);
      const isEmail = [...recordFields].every((f) => properties.has(f));
      const created = entry as Binding['operations']['sendEmail'];
      created.answer = isEmail ? 'email' : 'reference';
      const id = draft.pick(`/operations/${key}`, properties, idField, NAMES.id);
      if (id !== undefined) created.emailId = `body:/${id[0]}`;
      else if (
        isObject(draft.walk.child(response, 'headers', 'Location').node) ||
        isObject(draft.walk.child(response, 'headers', 'location').node)
      )
        created.emailId = 'header:Location';
      else
        draft.ambiguous.push({
          entry: `/operations/${key}`,
          candidates: ['the answer shows no id field and no Location header'],
        });
    }
    draft.set(`/operations/${key}`, entry, response.pointer);
  }
}

/** Each error code the document declares, with the statuses it declares it under. */
function declaredCodes(draft: InferenceDraft): Map<string, Map<number, string>> {
  const codes = new Map<string, Map<number, string>>();
  const paths = draft.walk.document.paths as Record<string, Record<string, unknown>>;
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of Object.keys(item)) {
      const operation = draft.walk.operation(method, path);
      if (operation === undefined || !isObject(operation.node)) continue;
      for (const [status, response] of draft.walk.responses(operation)) {
        if (!/^[45]\d\d$/.test(status)) continue;
        for (const code of codesOf(draft, response)) {
          const statuses = codes.get(code) ?? new Map<number, string>();
          statuses.set(Number(status), response.pointer);
          codes.set(code, statuses);
        }
      }
    }
  }
  return codes;
}

function codesOf(draft: InferenceDraft, response: Located): string[] {
  const found = new Set<string>();
  const listed = isObject(response.node) ? response.node['x-error-codes'] : undefined;
  if (Array.isArray(listed))
    for (const code of listed) if (typeof code === 'string') found.add(code);
  const schema = draft.walk.jsonSchema(response);
  if (schema !== undefined) {
    const code = draft.walk.properties(schema).get('code');
    const node = code && draft.walk.deref(code).node;
    if (isObject(node)) {
      if (typeof node.const === 'string') found.add(node.const);
      if (Array.isArray(node.enum))
        for (const c of node.enum) if (typeof c === 'string') found.add(c);
    }
  }
  const content = draft.walk.child(response, 'content');
  if (isObject(content.node))
    for (const media of Object.values(content.node)) {
      if (!isObject(media)) continue;
      const examples = [
        media.example,
        ...Object.values(isObject(media.examples) ? media.examples : {}).map((e) =>
          isObject(e) ? e.value : undefined,
        ),
      ];
      for (const example of examples)
        if (isObject(example) && typeof example.code === 'string') found.add(example.code);
    }
  return [...found];
}

/** Each error condition's code and status (D-12), by name or by the words of a declared code. */
export function inferErrors(draft: InferenceDraft): void {
  const declared = declaredCodes(draft);
  if (declared.size === 0) return;
  const conditions = Object.keys(draft.binding.errors);
  const generic = new Set([
    'invalid',
    'too',
    'many',
    'large',
    'not',
    'found',
    'missing',
    'field',
    'error',
    'request',
    'bad',
    'limit',
    'exceeded',
  ]);
  const tokens = (code: string) =>
    code
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((t) => t !== '' && !generic.has(t));
  const taken = new Set(conditions.filter((c) => declared.has(c)));
  for (const condition of conditions) {
    let code = condition;
    if (!declared.has(condition)) {
      const wanted = tokens(condition);
      const candidates = [...declared.keys()].filter(
        (c) =>
          !taken.has(c) &&
          tokens(c).some((t) =>
            wanted.some((w) => w === t || (w.length > 4 && t.startsWith(w.slice(0, 5)))),
          ),
      );
      if (candidates.length !== 1) {
        if (candidates.length > 1)
          draft.ambiguous.push({ entry: `/errors/${condition}`, candidates });
        continue;
      }
      code = candidates[0]!;
    }
    const statuses = [...declared.get(code)!];
    if (statuses.length > 1) {
      draft.ambiguous.push({
        entry: `/errors/${condition}`,
        candidates: statuses.map(([s, p]) => `${code} at ${s} (${p})`),
      });
      continue;
    }
    const [status, pointer] = statuses[0]!;
    draft.set(`/errors/${condition}`, { status, code }, pointer);
  }
}
