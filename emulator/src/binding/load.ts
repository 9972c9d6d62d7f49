/**
 * Reads a binding file (YAML or JSON), validates it against spec/binding.schema.json (ajv,
 * JSON Schema 2020-12), merges it over the default binding spec/bindings/decisions.yaml (a file
 * may give only some entries) and checks what the schema cannot say. Every refusal names the
 * file and the entry.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { newAjv2020 } from '../json-schema.ts';
import { packagePath } from '../package-root.ts';
import { parseYaml } from '../spec.ts';
import {
  EMAIL_FIELDS,
  WEBHOOK_DATA_FIELDS,
  type Binding,
  type EmailField,
  type FieldPath,
} from './binding.ts';
import { folderMap } from './folders.ts';
import { arraySteps, collision, parsePath, type RecordPath } from './paths.ts';

export const BINDING_SCHEMA_PATH = packagePath('spec/binding.schema.json');
export const DEFAULT_BINDING_PATH = packagePath('spec/bindings/decisions.yaml');

/** A binding that cannot be spoken; the message names the file and the entry. */
export class BindingError extends Error {
  override name = 'BindingError';
}

let defaultBinding: Binding | undefined;

/** spec/bindings/decisions.yaml: spec/DECISIONS.md written out, the emulator's own dialect. */
export function loadDefaultBinding(): Binding {
  defaultBinding ??= parseYaml(readFileSync(DEFAULT_BINDING_PATH, 'utf8')) as Binding;
  return structuredClone(defaultBinding);
}

/** Reads and checks a binding file; see `bindingFrom`. */
export function loadBindingFile(path: string): Binding {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new BindingError(`${path}: cannot read the binding (${(error as Error).message})`);
  }
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new BindingError(`${path}: not YAML or JSON (${(error as Error).message})`);
  }
  return bindingFrom(document, path);
}

type Validate = ((value: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; params: Record<string, unknown> }[] | null;
};
let validateSchema: Validate | undefined;

/**
 * A binding document (parsed already) checked and merged over the default; `source` names it
 * in errors. Throws BindingError.
 */
export function bindingFrom(document: unknown, source: string): Binding {
  validateSchema ??= newAjv2020({ strict: false, allErrors: true }).compile(
    JSON.parse(readFileSync(BINDING_SCHEMA_PATH, 'utf8')) as object,
  ) as Validate;
  if (!validateSchema(document)) {
    const error = validateSchema.errors?.[0];
    const where = error?.instancePath.slice(1).replace(/\//g, '.') || '(the document)';
    const extra =
      error?.params.additionalProperty === undefined
        ? ''
        : ` (${String(error.params.additionalProperty)})`;
    throw new BindingError(
      `${source}: ${where}: ${error?.message ?? 'does not match spec/binding.schema.json'}${extra}`,
    );
  }
  const binding = merge(loadDefaultBinding(), document as Partial<Binding>);
  check(binding, source);
  return binding;
}

/** Sections merge entry by entry; an operation's or an error's entries too. */
function merge(base: Binding, over: Partial<Binding>): Binding {
  const out = base as unknown as Record<string, unknown>;
  for (const [section, value] of Object.entries(over)) {
    const current = out[section];
    if (!isObject(value) || !isObject(current)) {
      out[section] = value;
      continue;
    }
    for (const [entry, given] of Object.entries(value)) {
      const had = current[entry];
      current[entry] =
        isObject(given) && isObject(had) && section !== 'folders' ? { ...had, ...given } : given;
    }
  }
  return out as unknown as Binding;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Which internal list each entry reads, so two lists never share one array of the record. */
const LIST_OF: Partial<Record<EmailField, string>> = {
  toAddress: 'to',
  toName: 'to',
  ccAddress: 'cc',
  ccName: 'cc',
  bccAddress: 'bcc',
  bccName: 'bcc',
  replyToAddress: 'replyTo',
  replyToName: 'replyTo',
  attachmentId: 'attachments',
  attachmentName: 'attachments',
  attachmentContentType: 'attachments',
  attachmentSize: 'attachments',
  references: 'references',
};

function check(binding: Binding, source: string): void {
  const fail = (entry: string, why: string): never => {
    throw new BindingError(`${source}: ${entry}: ${why}`);
  };
  const { names, sent, received } = binding.folders;
  if (!names.includes(sent)) fail('folders.sent', `"${sent}" is not one of folders.names`);
  if (!names.includes(received))
    fail('folders.received', `"${received}" is not one of folders.names`);
  if (received !== 'inbox')
    fail('folders.received', 'received mail lands in inbox here (§3.1, D-48); it must be inbox');
  if (sent === 'inbox' || sent === 'trash')
    fail('folders.sent', 'sent copies need a folder of their own, not inbox or trash');
  if (names.length > 5)
    fail(
      'folders.names',
      `${names.length} folders, but the emulator stores D-5's five (inbox, sent, archive, spam, trash): give at most 5`,
    );
  folderMap(binding.folders);

  const record = (section: 'email' | 'webhookData', paths: Record<string, FieldPath>) => {
    const given = EMAIL_FIELDS.flatMap((field) => {
      const path = paths[field];
      return path === null || path === undefined ? [] : [{ field, path }];
    });
    const entry = (field: string) =>
      section === 'email' || (WEBHOOK_DATA_FIELDS as readonly string[]).includes(field)
        ? `${section}.${field}`
        : field === 'id' || field === 'mailbox'
          ? `${section} (${field}, §6.2)`
          : `${section} (email.${field})`;
    for (const { field, path } of given) {
      if (arraySteps(parsePath(path)) > 1)
        fail(entry(field), `"${path}" has more than one [] step`);
    }
    const clash = collision(given.map((g) => g.path));
    if (clash !== undefined) {
      const [a, b] = clash;
      const name = (p: string) => given.find((g) => g.path === p)?.field ?? p;
      fail(entry(name(b)), `"${b}" collides with ${entry(name(a))} ("${a}")`);
    }
    const arrays = new Map<string, string>();
    for (const { field, path } of given) {
      const prefix = arrayPrefix(parsePath(path));
      if (prefix === undefined) continue;
      const list = LIST_OF[field] ?? field;
      const owner = arrays.get(prefix);
      if (owner !== undefined && owner !== list)
        fail(entry(field), `"${path}" puts ${list} into the array that holds ${owner}`);
      arrays.set(prefix, list);
    }
  };
  record('email', binding.email);
  // The data of email.received: id and mailbox by §6.2's names, webhookData's entries, and
  // the rest of the record as `email` names it (records.ts).
  record('webhookData', { ...binding.email, ...binding.webhookData, id: 'id', mailbox: 'mailbox' });
  if (binding.email.id === null) fail('email.id', 'the email record needs its id (§2.3)');

  const mailbox = [
    binding.mailboxes.address,
    binding.mailboxes.domain,
    binding.mailboxes.displayName,
  ].filter((p): p is string => p !== null);
  const clash = collision(mailbox);
  if (clash !== undefined) fail('mailboxes', `"${clash[1]}" collides with "${clash[0]}"`);

  const update = Object.values(binding.update);
  if (new Set(update).size !== update.length) fail('update', 'two entries share one field name');

  const recipient = binding.forward.recipient;
  if (recipient === null)
    return fail(
      'forward.recipient',
      'forward needs a recipient field (§4.8 "A recipient is required")',
    );
  if (arraySteps(parsePath(recipient)) > 1) fail('forward.recipient', 'at most one [] step');

  for (const [name, operation] of Object.entries(binding.operations)) {
    if (operation.answer === 'reference' && operation.emailId === undefined)
      fail(`operations.${name}.emailId`, 'a reference answer must say where the id is');
  }
}

function arrayPrefix(path: RecordPath): string | undefined {
  const at = path.findIndex((s) => s.each);
  return at < 0
    ? undefined
    : path
        .slice(0, at + 1)
        .map((s) => s.name)
        .join('.');
}

/** True when the binding is spec/DECISIONS.md's own (its name aside): the emulator maps nothing. */
export function isDefaultBinding(binding: Binding): boolean {
  const { name: _a, ...given } = binding;
  const { name: _b, ...own } = loadDefaultBinding();
  // Deep equality, key order aside: no canonical text is needed to compare two parsed files.
  return isDeepStrictEqual(given, own);
}
