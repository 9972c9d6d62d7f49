/**
 * A binding, read by the suite's own code: how one deployment names and answers what the
 * service document leaves "not shown" (spec/binding.schema.json). The suite checks a target
 * through its binding; it imports nothing of the emulator's renaming, so the oracle shares no
 * code with what it judges.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { packagePath } from '../package-root.ts';
import { canonicalJson } from '../canonical-json.ts';

export const BINDING_SCHEMA_PATH = packagePath('spec/binding.schema.json');
export const DEFAULT_BINDING_PATH = packagePath('spec/bindings/decisions.yaml');

/** Paths into a record (record-path.ts), by entry; null: the deployment has no such field. */
export type FieldPaths<K extends string> = Record<K, string | null>;

export const EMAIL_FIELDS = [
  'id',
  'mailbox',
  'folder',
  'read',
  'starred',
  'senderAddress',
  'senderName',
  'toAddress',
  'toName',
  'ccAddress',
  'ccName',
  'bccAddress',
  'bccName',
  'replyToAddress',
  'replyToName',
  'subject',
  'snippet',
  'text',
  'html',
  'preheader',
  'attachmentCount',
  'attachmentId',
  'attachmentName',
  'attachmentContentType',
  'attachmentSize',
  'receivedAt',
  'sentAt',
  'messageId',
  'inReplyTo',
  'references',
] as const;
export type EmailField = (typeof EMAIL_FIELDS)[number];

export const WEBHOOK_DATA_FIELDS = [
  'senderAddress',
  'senderName',
  'toAddress',
  'toName',
  'ccAddress',
  'ccName',
  'subject',
  'text',
  'html',
  'attachmentId',
  'attachmentName',
  'attachmentContentType',
  'attachmentSize',
  'receivedAt',
] as const satisfies readonly EmailField[];
export type WebhookDataField = (typeof WEBHOOK_DATA_FIELDS)[number];

export const CREATING_OPERATIONS = ['sendEmail', 'replyToEmail', 'forwardEmail'] as const;
export type CreatingOperation = (typeof CREATING_OPERATIONS)[number];
export const PLAIN_OPERATIONS = [
  'listMailboxes',
  'listEmails',
  'getEmail',
  'updateEmail',
  'uploadAttachment',
  'downloadAttachment',
] as const;
export type BoundOperation = CreatingOperation | (typeof PLAIN_OPERATIONS)[number];

export interface CreatedAnswer {
  status: number;
  /** `email`: the answer is the created email; `reference`: it only names it. */
  answer: 'email' | 'reference';
  /** `body:<JSON pointer>` or `header:<name>`. */
  emailId: string;
}

export interface BoundError {
  status: number;
  code: string;
}

/** A complete binding: every entry of spec/binding.schema.json. */
export interface Binding {
  binding: 1;
  name: string;
  mailboxes: {
    array: string | null;
    address: string;
    domain: string | null;
    displayName: string | null;
  };
  list: { array: string };
  email: FieldPaths<EmailField>;
  webhookData: FieldPaths<WebhookDataField>;
  update: { folder: string; read: string; starred: string };
  send: { preheader: string | null };
  forward: { recipient: string };
  operations: Record<CreatingOperation, CreatedAnswer> &
    Record<(typeof PLAIN_OPERATIONS)[number], { status: number }>;
  /** By mailtwin's code (spec/DECISIONS.md D-12): what the deployment answers instead. */
  errors: Record<string, BoundError>;
  folders: { names: string[]; sent: string; received: string };
}

/** A binding with where each of its entries came from, as a run reports it. */
export interface ResolvedBinding {
  binding: Binding;
  /**
   * Each entry (a JSON pointer into the binding, `/email/senderAddress`) and its source:
   * `default` (spec/bindings/decisions.yaml), `file <path>`, or `<document>#<JSON pointer>`
   * for an entry inferred from a published OpenAPI document.
   */
  sources: Record<string, string>;
  /** SHA-256 of the binding's canonical JSON: two runs with one hash used one binding. */
  sha256: string;
}

/** A binding document that breaks spec/binding.schema.json, or names what cannot be. */
export class InvalidBinding extends Error {
  override name = 'InvalidBinding';
}

let validateBinding: ReturnType<Ajv2020['compile']> | undefined;

function schemaErrors(document: unknown): string[] {
  validateBinding ??= new Ajv2020({ allErrors: true, strict: false }).compile(
    JSON.parse(readFileSync(BINDING_SCHEMA_PATH, 'utf8')) as object,
  );
  if (validateBinding(document)) return [];
  return (validateBinding.errors ?? []).map(
    (e) => `${e.instancePath === '' ? '(top)' : e.instancePath} ${e.message ?? 'is invalid'}`,
  );
}

let defaults: Binding | undefined;

/** spec/DECISIONS.md as a binding (spec/bindings/decisions.yaml). */
export function defaultBinding(): Binding {
  defaults ??= parse(readFileSync(DEFAULT_BINDING_PATH, 'utf8')) as Binding;
  return structuredClone(defaults);
}

/** The leaf entries of a binding: what a source is recorded for. */
export function bindingEntries(binding: Binding): [pointer: string, value: unknown][] {
  const entries: [string, unknown][] = [];
  for (const [section, value] of Object.entries(binding)) {
    if (section === 'binding' || section === 'name') continue;
    for (const [key, entry] of Object.entries(value as Record<string, unknown>))
      entries.push([`/${section}/${key}`, entry]);
  }
  return entries;
}

/**
 * A complete binding from a (possibly partial) binding document: every entry it gives, the
 * rest from the default. `origin` says where each given entry came from (`file x.yaml`);
 * `givenSources` may name a more precise source for some entries.
 */
export function resolveBinding(
  document: unknown,
  origin: string,
  givenSources: Record<string, string> = {},
): ResolvedBinding {
  const problems = schemaErrors(document);
  if (problems.length > 0)
    throw new InvalidBinding(
      `${origin}: not a binding (spec/binding.schema.json):\n  ${problems.join('\n  ')}`,
    );
  const given = document as Partial<Binding>;
  const binding = defaultBinding();
  const sources: Record<string, string> = {};
  for (const [pointer] of bindingEntries(binding)) sources[pointer] = 'default';
  for (const [section, value] of Object.entries(given)) {
    if (section === 'binding') continue;
    if (section === 'name') {
      binding.name = value as string;
      continue;
    }
    const into = binding[section as keyof Binding] as unknown as Record<string, unknown>;
    for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
      const merged =
        section === 'operations'
          ? { ...(into[key] as object), ...(entry as object) }
          : structuredClone(entry);
      into[key] = merged;
      sources[`/${section}/${key}`] = givenSources[`/${section}/${key}`] ?? origin;
    }
  }
  checkCoherent(binding, origin);
  return { binding, sources, sha256: bindingHash(binding) };
}

/** Reads a binding file (YAML or JSON). */
export function loadBindingFile(path: string): ResolvedBinding {
  let document: unknown;
  try {
    document = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InvalidBinding(`cannot read the binding ${path}: ${(error as Error).message}`);
  }
  return resolveBinding(document, `file ${path}`);
}

/** Whether two bindings give every entry alike (their names may differ). */
export function sameEntries(a: Binding, b: Binding): boolean {
  return bindingHash({ ...a, name: '' }) === bindingHash({ ...b, name: '' });
}

export function bindingHash(binding: Binding): string {
  return createHash('sha256').update(canonicalJson(binding)).digest('hex');
}

/** What the schema cannot say: the folders named are folders, one record's paths are apart. */
function checkCoherent(binding: Binding, origin: string): void {
  const problems: string[] = [];
  const { names, sent, received } = binding.folders;
  for (const [entry, name] of [
    ['sent', sent],
    ['received', received],
  ] as const) {
    if (!names.includes(name))
      problems.push(`/folders/${entry} names "${name}", which is not in /folders/names`);
  }
  for (const section of ['email', 'webhookData'] as const) {
    const seen = new Map<string, string>();
    for (const [key, path] of Object.entries(binding[section])) {
      if (path === null) continue;
      const other = seen.get(path);
      if (other !== undefined)
        problems.push(`/${section}/${key} and /${section}/${other} are both ${path}`);
      seen.set(path, key);
    }
  }
  const update = Object.entries(binding.update);
  for (const [key, name] of update)
    if (update.some(([other, n]) => other !== key && n === name))
      problems.push(`/update/${key} shares the name ${name} with another PATCH field`);
  if (problems.length > 0) throw new InvalidBinding(`${origin}:\n  ${problems.join('\n  ')}`);
}
