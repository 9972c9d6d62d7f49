/**
 * The document a deployment speaking a binding serves at `{origin}/openapi/openapi.json` (§1
 * "OpenAPI 3.1 schema"), derived from spec/openapi.yaml: the records, request bodies, success
 * statuses and answers, errors and folder names of the binding, with every example rewritten
 * the same way, so the docs page and a client generated from it speak the dialect.
 */
import type { OpenApiDocument } from '../spec.ts';
import { answerContext, renderSuccess, bodyPointer, idHeader } from './answers.ts';
import {
  CREATING_OPERATIONS,
  EMAIL_FIELDS,
  OPERATIONS,
  type Binding,
  type EmailField,
  type OperationName,
} from './binding.ts';
import { folderMap, wireFolder } from './folders.ts';
import { parsePath, topName, writePath, type RecordPath } from './paths.ts';
import {
  SOURCES,
  emailLayout,
  renderEmail,
  webhookDataLayout,
  type RecordLayout,
} from './records.ts';

type Json = Record<string, unknown>;
type Schema = Json;

const SUMMARY_SOURCES = new Set([
  'id',
  'mailbox',
  'folder',
  'read',
  'starred',
  'from',
  'to',
  'cc',
  'subject',
  'snippet',
  'attachmentCount',
  'receivedAt',
]);

export function servedSpec(spec: OpenApiDocument, binding: Binding): OpenApiDocument {
  const doc = structuredClone(spec) as Json;
  const components = doc.components as Json;
  const schemas = components.schemas as Record<string, Schema>;
  const leaves = leafSchemas(schemas);
  const context = answerContext(binding);
  const folders = folderMap(binding.folders);

  doc['x-binding'] = { name: binding.name ?? 'unnamed binding', format: 1 };
  doc.info = {
    ...(doc.info as Json),
    description: `${String((doc.info as Json).description ?? '')}\nThis instance speaks the binding "${binding.name ?? 'unnamed'}": the names, statuses and codes below are that deployment's, mapped at the emulator's edge.\n`,
  };

  schemas.Folder = {
    ...schemas.Folder,
    enum: [...binding.folders.names],
    description: `A folder name. New received mail lands in \`${binding.folders.received}\`, sent copies in \`${binding.folders.sent}\`.`,
  };

  const layout = emailLayout(binding);
  const summary = layout.filter(({ field }) => SUMMARY_SOURCES.has(SOURCES[field].field));
  schemas.EmailSummary = recordSchema(schemas.EmailSummary as Schema, summary, leaves);
  schemas.EmailDetail = recordSchema(schemas.EmailDetail as Schema, layout, leaves);
  const list = schemas.EmailList as Schema;
  const listProperties = list.properties as Json;
  schemas.EmailList = {
    ...list,
    required: [binding.list.array, 'nextCursor'],
    properties: {
      [binding.list.array]: listProperties.emails,
      nextCursor: listProperties.nextCursor,
    },
  };
  schemas.Mailbox = mailboxSchema(schemas.Mailbox as Schema, binding);

  const update = schemas.UpdateEmailRequest as Schema;
  const updateProps = update.properties as Json;
  schemas.UpdateEmailRequest = {
    ...update,
    properties: {
      [binding.update.folder]: updateProps.folder,
      [binding.update.read]: updateProps.read,
      [binding.update.starred]: updateProps.starred,
    },
  };
  for (const name of ['SendEmailRequest', 'ReplyRequest', 'ForwardRequest'])
    schemas[name] = renameProperty(schemas[name] as Schema, 'preheader', binding.send.preheader);
  schemas.ForwardRequest = forwardSchema(schemas.ForwardRequest as Schema, binding);

  const event = schemas.EmailReceivedEvent as Schema;
  const eventProps = event.properties as Json;
  const data = eventProps.data as Schema;
  const { allOf: _allOf, ...dataRest } = data;
  eventProps.data = {
    ...dataRest,
    ...recordSchema({}, webhookDataLayout(binding), leaves),
    required: ['id', 'mailbox'],
  };

  for (const item of Object.values(doc.paths as Json)) {
    for (const operation of Object.values(item as Json)) {
      if (typeof operation !== 'object' || operation === null) continue;
      const id = (operation as Json).operationId;
      if (typeof id !== 'string') continue;
      rewriteOperation(doc, operation as Json, id, binding, context);
    }
  }

  const examples = (components.examples ?? {}) as Record<string, Json>;
  for (const example of Object.values(examples))
    example.value = renderEmail(example.value as Json, layout, folders);
  const received = ((doc.webhooks as Json)['email.received'] as Json).post as Json;
  const receivedBody = ((received.requestBody as Json).content as Json)['application/json'] as Json;
  const receivedExample = receivedBody.example as Json | undefined;
  if (receivedExample !== undefined)
    receivedExample.data = renderEmail(
      receivedExample.data as Json,
      webhookDataLayout(binding),
      folders,
    );

  rewriteLimits(doc['x-limits'] as Json | undefined, binding);
  void wireFolder;
  return doc as OpenApiDocument;
}

/** The schema of each entry's value, from the contract's own record schemas. */
function leafSchemas(schemas: Record<string, Schema>): Record<EmailField, Schema> {
  const props = (name: string) => (schemas[name] as Schema).properties as Record<string, Schema>;
  const summary = props('EmailSummary');
  const detail = ((schemas.EmailDetail as Schema).allOf as Schema[])[1]?.properties as Record<
    string,
    Schema
  >;
  const address = props('Address');
  const attachment = props('MessageAttachment');
  const own = { ...summary, ...detail };
  const leaves = {} as Record<EmailField, Schema>;
  for (const field of EMAIL_FIELDS) {
    const source = SOURCES[field];
    if (source.field === 'references') leaves[field] = (own.references as Schema).items as Schema;
    else if (source.field === 'attachments')
      leaves[field] = attachment[source.member as string] as Schema;
    else if (source.member !== undefined)
      leaves[field] = address[source.member as string] as Schema;
    else leaves[field] = own[source.field] as Schema;
  }
  return leaves;
}

interface Node {
  props: Map<string, Node>;
  array: boolean;
  leaf?: Schema;
}

function newNode(): Node {
  return { props: new Map(), array: false };
}

/** Places a leaf schema at a path in a tree of objects and arrays. */
function place(root: Node, path: RecordPath, leaf: Schema): void {
  let node = root;
  path.forEach((segment, i) => {
    let child = node.props.get(segment.name);
    if (child === undefined) {
      child = newNode();
      child.array = segment.each;
      node.props.set(segment.name, child);
    }
    if (i === path.length - 1) child.leaf = leaf;
    node = child;
  });
}

function toSchema(node: Node, options: { oneItem?: boolean } = {}): Schema {
  const inner: Schema =
    node.leaf !== undefined
      ? node.leaf
      : {
          type: 'object',
          required: [...node.props.keys()],
          properties: Object.fromEntries(
            [...node.props].map(([k, v]) => [k, toSchema(v, options)]),
          ),
        };
  if (!node.array) return inner;
  return options.oneItem
    ? { type: 'array', minItems: 1, maxItems: 1, items: inner }
    : { type: 'array', items: inner };
}

/** A record's schema: every entry at its path, required (the emulator always gives them). */
function recordSchema(
  base: Schema,
  layout: RecordLayout,
  leaves: Record<EmailField, Schema>,
): Schema {
  const root = newNode();
  for (const { field, path } of layout) {
    const source = SOURCES[field];
    let leaf = leaves[field];
    // A list entry at a path without [] holds its first item, or null.
    if (source.list && !path.some((s) => s.each)) leaf = { anyOf: [leaf, { type: 'null' }] };
    place(root, path, leaf);
  }
  const { allOf: _allOf, required: _required, properties: _properties, ...rest } = base;
  const built = toSchema(root);
  return { ...rest, type: 'object', required: built.required, properties: built.properties };
}

function mailboxSchema(base: Schema, binding: Binding): Schema {
  const props = base.properties as Record<string, Schema>;
  const root = newNode();
  const { address, domain, displayName } = binding.mailboxes;
  place(root, parsePath(address), props.address as Schema);
  if (domain !== null) place(root, parsePath(domain), props.domain as Schema);
  if (displayName !== null) place(root, parsePath(displayName), props.displayName as Schema);
  const built = toSchema(root);
  return { ...base, required: built.required, properties: built.properties };
}

/** Renames one property in place (its order kept), or drops it for null. */
function renameProperty(schema: Schema, from: string, to: string | null): Schema {
  const props = schema.properties as Json;
  const renamed: Json = {};
  for (const [key, value] of Object.entries(props)) {
    if (key !== from) renamed[key] = value;
    else if (to !== null) renamed[to] = value;
  }
  const required = (schema.required as string[] | undefined)?.flatMap((r) =>
    r !== from ? [r] : to === null ? [] : [to],
  );
  return { ...schema, properties: renamed, ...(required === undefined ? {} : { required }) };
}

/** The forward recipient at its path (a list path takes a list of exactly one, D-23). */
function forwardSchema(schema: Schema, binding: Binding): Schema {
  const path = parsePath(binding.forward.recipient as string);
  const props = schema.properties as Json;
  const root = newNode();
  place(root, path, props.to as Schema);
  const top = topName(path);
  const built = toSchema(root, { oneItem: true });
  const renamed: Json = {};
  for (const [key, value] of Object.entries(props))
    renamed[key === 'to' ? top : key] = key === 'to' ? (built.properties as Json)[top] : value;
  const required = (schema.required as string[]).map((r) => (r === 'to' ? top : r));
  return { ...schema, properties: renamed, required };
}

function resolve(doc: Json, value: Json): Json {
  const ref = value.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return value;
  let node: unknown = doc;
  for (const part of ref.slice(2).split('/')) node = (node as Json)[part];
  return node as Json;
}

function rewriteOperation(
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

/** x-limits: each limit's code as the binding answers it, the preheader's field as named. */
function rewriteLimits(limits: Json | undefined, binding: Binding): void {
  if (limits === undefined) return;
  for (const limit of Object.values(limits)) {
    if (typeof limit !== 'object' || limit === null) continue;
    const entry = limit as Json;
    const code = entry.errorCode;
    if (typeof code === 'string' && binding.errors[code] !== undefined)
      entry.errorCode = (binding.errors[code] as { code: string }).code;
    if (Array.isArray(entry.fields) && entry.fields.includes('preheader')) {
      entry.fields = entry.fields.flatMap((f: unknown) =>
        f !== 'preheader' ? [f] : binding.send.preheader === null ? [] : [binding.send.preheader],
      );
    }
  }
}
