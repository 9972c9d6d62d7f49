/**
 * Each operation of the document a binding serves (served-spec.ts): its success at the bound
 * status, in the binding's shape (a reference answer, an id header), each error condition at its
 * bound status with its bound codes, and its request examples in the binding's names.
 */
import { answerContext, renderSuccess, bodyPointer, idHeader } from './answers.ts';
import { CREATING_OPERATIONS, OPERATIONS, type Binding, type OperationName } from './binding.ts';
import { folderMap, wireFolder } from './folders.ts';
import { parsePath, writePath } from './paths.ts';

type Json = Record<string, unknown>;
type Schema = Json;

function resolve(doc: Json, value: Json): Json {
  const ref = value.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return value;
  let node: unknown = doc;
  for (const part of ref.slice(2).split('/')) node = (node as Json)[part];
  return node as Json;
}

/** Rewrites one operation of `doc` (a copy) in place. */
export function rewriteOperation(
  doc: Json,
  operation: Json,
  id: string,
  binding: Binding,
  context: ReturnType<typeof answerContext>,
): void {
  const responses = operation.responses as Record<string, Json>;
  const known = (OPERATIONS as readonly string[]).includes(id) ? (id as OperationName) : undefined;
  const out: Record<string, Json> = {};
  // The success, at its bound status, in the binding's names.
  for (const [key, response] of Object.entries(responses)) {
    if (!/^2\d\d$/.test(key)) continue;
    if (known === undefined) {
      out[key] = response;
      continue;
    }
    const bound = binding.operations[known];
    out[String(bound.status)] = successResponse(response, known, binding, context);
  }
  // Each error condition at its bound status, with its bound codes.
  const groups = new Map<
    string,
    { codes: string[]; sources: { key: string; raw: Json; resolved: Json }[] }
  >();
  for (const [key, raw] of Object.entries(responses)) {
    if (/^2\d\d$/.test(key)) continue;
    const resolved = resolve(doc, raw);
    const codes = (resolved['x-error-codes'] as string[] | undefined) ?? [];
    if (codes.length === 0) {
      out[key] = raw;
      continue;
    }
    for (const code of codes) {
      const bound = binding.errors[code];
      const status = String(bound?.status ?? key);
      const group = groups.get(status) ?? { codes: [], sources: [] };
      const wire = bound?.code ?? code;
      if (!group.codes.includes(wire)) group.codes.push(wire);
      if (!group.sources.some((s) => s.raw === raw)) group.sources.push({ key, raw, resolved });
      groups.set(status, group);
    }
  }
  for (const status of [...groups.keys()].sort()) {
    const group = groups.get(status) as {
      codes: string[];
      sources: { key: string; raw: Json; resolved: Json }[];
    };
    const [only] = group.sources;
    const unchanged =
      group.sources.length === 1 &&
      only !== undefined &&
      only.key === status &&
      sameList(group.codes, only.resolved['x-error-codes'] as string[]);
    if (unchanged) {
      out[status] = only.raw;
      continue;
    }
    const headers = Object.assign(
      {},
      ...group.sources.map((s) => (s.resolved.headers ?? {}) as Json),
    ) as Json;
    out[status] = {
      'x-decided': 'D-12',
      description: `Answered ${status} by this deployment's binding: ${group.codes.map((c) => `\`${c}\``).join(', ')}.`,
      'x-error-codes': group.codes,
      ...(Object.keys(headers).length === 0 ? {} : { headers }),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  operation.responses = out;
  if (known === 'listMailboxes') {
    const content = (
      (out[String(binding.operations.listMailboxes.status)] as Json).content as Json
    )['application/json'] as Json;
    const items = { $ref: '#/components/schemas/Mailbox' };
    content.schema =
      binding.mailboxes.array === null
        ? { type: 'array', description: 'Mailboxes available to the key.', items }
        : {
            type: 'object',
            required: [binding.mailboxes.array],
            properties: {
              [binding.mailboxes.array]: {
                type: 'array',
                description: 'Mailboxes available to the key.',
                items,
              },
            },
          };
  }
  rewriteRequestExamples(operation, id, binding);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function successResponse(
  response: Json,
  operation: OperationName,
  binding: Binding,
  context: ReturnType<typeof answerContext>,
): Json {
  const out = { ...response };
  const content = out.content as Record<string, Json> | undefined;
  const json = content?.['application/json'];
  const bound = binding.operations[operation];
  const creating = (CREATING_OPERATIONS as readonly string[]).includes(operation);
  if (json !== undefined) {
    const media = { ...json };
    if (creating && bound.answer === 'reference') {
      media.schema = referenceSchema(bound.emailId);
      out.description =
        'Accepted. The body names the created email; read it with `GET /emails/{emailId}`.';
    }
    if (media.example !== undefined)
      media.example = renderSuccess(operation, media.example, context);
    if (media.examples !== undefined) {
      media.examples = Object.fromEntries(
        Object.entries(media.examples as Record<string, Json>).map(([name, example]) => [
          name,
          example.value === undefined
            ? example
            : { ...example, value: renderSuccess(operation, example.value, context) },
        ]),
      );
    }
    out.content = { ...content, 'application/json': media };
  }
  if (creating) {
    const header = idHeader(bound.emailId);
    const headers = { ...((out.headers ?? {}) as Json) };
    if (header !== undefined && header.toLowerCase() !== 'location')
      headers[header] = {
        required: true,
        description: 'URL of the created email; its last path segment is the email id.',
        schema: { type: 'string' },
      };
    if (header !== undefined) {
      const existing = Object.keys(headers).find((h) => h.toLowerCase() === header.toLowerCase());
      if (existing !== undefined) (headers[existing] as Json).required = true;
    }
    if (Object.keys(headers).length > 0) out.headers = headers;
  }
  return out;
}

/** `answer: reference`: an object holding the id at its pointer, and `status: "queued"`. */
function referenceSchema(emailId: string | undefined): Schema {
  const pointer = bodyPointer(emailId);
  if (pointer !== undefined && pointer.length === 0)
    return { type: 'string', description: 'The created email id.' };
  const root: Schema = {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', const: 'queued' } },
  };
  if (pointer === undefined) return root;
  let node = root;
  pointer.forEach((part, i) => {
    const props = node.properties as Json;
    if (!(node.required as string[]).includes(part)) (node.required as string[]).push(part);
    if (i === pointer.length - 1) {
      props[part] = {
        type: 'string',
        description: 'The created email id; read it with `GET /emails/{emailId}`.',
      };
      return;
    }
    const next: Schema = { type: 'object', required: [], properties: {} };
    props[part] = next;
    node = next;
  });
  return root;
}

/** Request examples in the binding's names (the inverse of requests.ts). */
function rewriteRequestExamples(operation: Json, id: string, binding: Binding): void {
  const media = ((operation.requestBody as Json | undefined)?.content as Json | undefined)?.[
    'application/json'
  ] as Json | undefined;
  if (media === undefined) return;
  const folders = folderMap(binding.folders);
  const wire = (value: Json): Json => {
    const out: Json = {};
    for (const [key, v] of Object.entries(value)) {
      if (id === 'updateEmail') {
        const name = binding.update[key as 'folder' | 'read' | 'starred'] ?? key;
        out[name] = key === 'folder' ? wireFolder(folders, v) : v;
      } else if (key === 'preheader') {
        if (binding.send.preheader !== null) out[binding.send.preheader] = v;
      } else if (key === 'to' && id === 'forwardEmail') {
        const path = parsePath(binding.forward.recipient as string);
        writePath(out, path, path.some((s) => s.each) ? [v] : v);
      } else out[key] = v;
    }
    return out;
  };
  if (!['updateEmail', 'sendEmail', 'replyToEmail', 'forwardEmail'].includes(id)) return;
  if (media.example !== undefined) media.example = wire(media.example as Json);
  if (media.examples !== undefined)
    for (const example of Object.values(media.examples as Record<string, Json>))
      if (example.value !== undefined) example.value = wire(example.value as Json);
}
