/**
 * The component schemas of the document a binding serves (served-spec.ts): the folder names,
 * the email record (summary, detail and the webhook's `data`), the list, the mailbox, and the
 * request bodies, each in the binding's names and shape, built from the contract's own schemas
 * so every entry keeps its type, format and description.
 */
import { EMAIL_FIELDS, type Binding, type EmailField } from './binding.ts';
import { parsePath, topName, type RecordPath } from './paths.ts';
import { SOURCES, emailLayout, webhookDataLayout, type RecordLayout } from './records.ts';

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

/** Rewrites `schemas` (the document's `components.schemas`, a copy) in the binding's names. */
export function rewriteSchemas(schemas: Record<string, Schema>, binding: Binding): void {
  const leaves = leafSchemas(schemas);
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
