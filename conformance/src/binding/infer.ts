/**
 * Infers a deployment's binding from the OpenAPI document it publishes (§1: every deployment
 * serves `{origin}/openapi/openapi.json`). The document's own names anchor the search: the
 * GET /emails answer's array property, the PATCH body's properties (whose names then find the
 * same fields in the email record), each operation's declared responses and error codes. An
 * entry with several candidates is reported with them, never guessed; one the document does
 * not show keeps the default and says so.
 */
import {
  EMAIL_FIELDS,
  WEBHOOK_DATA_FIELDS,
  defaultBinding,
  type Binding,
  type EmailField,
  type WebhookDataField,
} from './binding.ts';
import { OpenApiWalk, isObject, type Located } from './openapi-walk.ts';

export interface Ambiguity {
  /** The binding entry, as a JSON pointer into the binding: `/list/array`. */
  entry: string;
  /** Each candidate, with where the document shows it. */
  candidates: string[];
}

export interface Inference {
  /** A complete binding document: inferred entries, the rest the default's. */
  binding: Binding;
  /** Each entry's source: a JSON pointer into the document (`#/paths/...`), or `default`. */
  sources: Record<string, string>;
  ambiguous: Ambiguity[];
}

/** Names of a field in well-known APIs (Gmail, Graph, Postmark, Resend, SendGrid, Mailgun). */
const NAMES: Record<EmailField, RegExp> = {
  id: /^(id|emailId|messageId|email_id)$/i,
  mailbox: /^(mailbox|mailboxAddress|mailbox_address|account|inbox)$/i,
  folder: /^(folder|folderName|parentFolder|parentFolderId|label|mailboxFolder)$/i,
  read: /^(read|isRead|is_read|seen|unread)$/i,
  starred: /^(starred|isStarred|is_starred|flagged|isFlagged|flag|pinned)$/i,
  senderAddress: /^(from|sender)$/i,
  senderName: /^(from|sender)$/i,
  toAddress: /^(to|toRecipients|to_recipients|recipients)$/i,
  toName: /^(to|toRecipients|to_recipients|recipients)$/i,
  ccAddress: /^(cc|ccRecipients|cc_recipients)$/i,
  ccName: /^(cc|ccRecipients|cc_recipients)$/i,
  bccAddress: /^(bcc|bccRecipients|bcc_recipients)$/i,
  bccName: /^(bcc|bccRecipients|bcc_recipients)$/i,
  replyToAddress: /^(replyTo|reply_to|replyToRecipients)$/i,
  replyToName: /^(replyTo|reply_to|replyToRecipients)$/i,
  subject: /^(subject|title)$/i,
  snippet: /^(snippet|preview|bodyPreview|excerpt|summary)$/i,
  text: /^(text|textBody|text_body|plainText|bodyText|plain)$/i,
  html: /^(html|htmlBody|html_body|bodyHtml)$/i,
  preheader: /^(preheader|previewText|preview_text)$/i,
  attachmentCount: /^(attachmentCount|attachment_count|attachmentsCount|numAttachments)$/i,
  attachmentId: /^(attachments|files)$/i,
  attachmentName: /^(attachments|files)$/i,
  attachmentContentType: /^(attachments|files)$/i,
  attachmentSize: /^(attachments|files)$/i,
  receivedAt: /^(receivedAt|received_at|receivedDateTime|received|date)$/i,
  sentAt: /^(sentAt|sent_at|sentDateTime|sent)$/i,
  messageId: /^(messageId|message_id|internetMessageId|rfcMessageId)$/i,
  inReplyTo: /^(inReplyTo|in_reply_to)$/i,
  references: /^(references)$/i,
};

/** Fields §2.3 says an email has: not found in the document, they keep the default. */
const DOCUMENTED_FIELDS = new Set<EmailField>([
  'id',
  'mailbox',
  'folder',
  'read',
  'starred',
  'senderAddress',
  'toAddress',
  'subject',
  'attachmentId',
]);

const ADDRESS = /^(address|email|emailAddress|email_address|addr)$/i;
const NAME = /^(name|displayName|display_name)$/i;
const ATTACHMENT_PART: Partial<Record<EmailField, RegExp>> = {
  attachmentId: /^(id|attachmentId|attachment_id)$/i,
  attachmentName: /^(name|filename|fileName|file_name)$/i,
  attachmentContentType: /^(contentType|content_type|mimeType|mime_type|type)$/i,
  attachmentSize: /^(size|bytes|length)$/i,
};

export function inferBinding(document: unknown): Inference {
  if (!isObject(document) || !isObject(document.paths))
    throw new Error('not an OpenAPI document: it has no `paths` object');
  return new Inferrer(new OpenApiWalk(document)).run();
}

class Inferrer {
  private readonly binding = defaultBinding();
  private readonly sources: Record<string, string> = {};
  private readonly ambiguous: Ambiguity[] = [];

  constructor(private readonly walk: OpenApiWalk) {}

  run(): Inference {
    this.binding.name = `inferred from ${String((this.walk.document.info as { title?: unknown } | undefined)?.title ?? 'an OpenAPI document')}`;
    this.update();
    this.list();
    this.records();
    this.mailboxes();
    this.send();
    this.forward();
    this.operations();
    this.errors();
    this.folders();
    for (const section of Object.keys(this.binding))
      if (isObject((this.binding as unknown as Record<string, unknown>)[section]))
        for (const key of Object.keys(
          (this.binding as unknown as Record<string, Record<string, unknown>>)[section]!,
        ))
          this.sources[`/${section}/${key}`] ??= 'default';
    return { binding: this.binding, sources: this.sources, ambiguous: this.ambiguous };
  }

  private set(entry: string, value: unknown, source: string): void {
    const [, section, key] = entry.split('/') as [string, string, string];
    (this.binding as unknown as Record<string, Record<string, unknown>>)[section]![key] = value;
    this.sources[entry] = source;
  }

  /** One name among `names` for `entry`: the default's name first, then the pattern's. */
  private pick(
    entry: string,
    properties: Map<string, Located>,
    defaultName: string | undefined,
    pattern: RegExp,
    accept: (at: Located) => boolean = () => true,
  ): [string, Located] | undefined {
    if (defaultName !== undefined) {
      const exact = properties.get(defaultName);
      if (exact !== undefined && accept(exact)) return [defaultName, exact];
    }
    const found = [...properties].filter(([name, at]) => pattern.test(name) && accept(at));
    if (found.length === 1) return found[0];
    if (found.length > 1)
      this.ambiguous.push({
        entry,
        candidates: found.map(([name, at]) => `${name} (${at.pointer})`),
      });
    return undefined;
  }

  private operation(method: string, path: string): Located | undefined {
    return this.walk.operation(method, path);
  }

  private successSchema(method: string, path: string): Located | undefined {
    const operation = this.operation(method, path);
    const success = operation && this.walk.success(operation);
    return success && this.walk.jsonSchema(success[1]);
  }

  private requestProperties(method: string, path: string): Map<string, Located> {
    const operation = this.operation(method, path);
    if (operation === undefined) return new Map();
    const schema = this.walk.jsonSchema(this.walk.child(operation, 'requestBody'));
    return schema === undefined ? new Map() : this.walk.properties(schema);
  }

  private update(): void {
    const properties = this.requestProperties('patch', '/emails/{emailId}');
    if (properties.size === 0) return;
    const isBoolean = (at: Located) => this.walk.types(at).includes('boolean');
    const isString = (at: Located) => this.walk.types(at).includes('string');
    for (const [key, accept] of [
      ['folder', isString],
      ['read', isBoolean],
      ['starred', isBoolean],
    ] as const) {
      const found = this.pick(`/update/${key}`, properties, key, NAMES[key], accept);
      if (found !== undefined) this.set(`/update/${key}`, found[0], found[1].pointer);
    }
  }

  private listArray(): Located | undefined {
    const schema = this.successSchema('get', '/emails');
    if (schema === undefined) return undefined;
    const arrays = new Map(
      [...this.walk.properties(schema)].filter(
        ([name, at]) => name !== 'nextCursor' && this.walk.types(at).includes('array'),
      ),
    );
    const found = this.pick('/list/array', arrays, this.binding.list.array, /./);
    if (found === undefined) return undefined;
    this.set('/list/array', found[0], found[1].pointer);
    return this.walk.items(found[1]);
  }

  private list(): void {
    this.listItems = this.listArray();
  }

  private listItems: Located | undefined;

  /** The email record: list items and detail together (a detail adds to the summary). */
  private records(): void {
    const fields = new Map<string, Located>();
    const detail = this.successSchema('get', '/emails/{emailId}');
    for (const schema of [detail, this.listItems])
      if (schema !== undefined)
        for (const [name, at] of this.walk.properties(schema))
          if (!fields.has(name)) fields.set(name, at);
    if (fields.size === 0) return;
    // The PATCH body's names find the same attributes in the record.
    const anchors: Partial<Record<EmailField, string>> = {
      folder: this.binding.update.folder,
      read: this.binding.update.read,
      starred: this.binding.update.starred,
    };
    const defaults = defaultBinding().email;
    for (const field of EMAIL_FIELDS) {
      const path = this.fieldPath(
        `/email/${field}`,
        field,
        fields,
        anchors[field] ?? topOf(defaults[field]),
      );
      if (path !== undefined) this.set(`/email/${field}`, path[0], path[1]);
      else if (!DOCUMENTED_FIELDS.has(field))
        this.set(
          `/email/${field}`,
          null,
          `${detail?.pointer ?? this.listItems?.pointer} (no such field)`,
        );
    }
    const event = this.webhookData();
    if (event !== undefined) this.webhookDataFields(event);
    else {
      // No webhook section: `data` is the email record (D-37), in the record's names.
      for (const field of WEBHOOK_DATA_FIELDS) {
        this.binding.webhookData[field] = this.binding.email[field];
        this.sources[`/webhookData/${field}`] = this.sources[`/email/${field}`] ?? 'default';
      }
    }
  }

  /**
   * The fields of email.received's `data`: id and mailbox by §6.2's names, every other field
   * of the record by the record's names (D-37), and those the webhook entries name found by
   * name. One the record has but `data` shows under no known name, while `data` has a property
   * nothing explains, is ambiguous (those properties are its candidates); with none left, the
   * deployment's data has no such field.
   */
  private webhookDataFields(event: Located): void {
    const data = this.walk.properties(event);
    const defaults = defaultBinding().email;
    const explained = new Set<string>(['id', 'mailbox']);
    for (const field of EMAIL_FIELDS) {
      const path = this.binding.email[field];
      if (!(WEBHOOK_DATA_FIELDS as readonly string[]).includes(field) && path !== null)
        explained.add(topOf(path)!);
    }
    const missing: WebhookDataField[] = [];
    for (const field of WEBHOOK_DATA_FIELDS) {
      const path = this.fieldPath(`/webhookData/${field}`, field, data, topOf(defaults[field]));
      if (path === undefined) {
        missing.push(field);
        continue;
      }
      this.set(`/webhookData/${field}`, path[0], path[1]);
      explained.add(topOf(path[0])!);
    }
    const unexplained = [...data].filter(([name]) => !explained.has(name));
    for (const field of missing) {
      if (this.binding.email[field] !== null && unexplained.length > 0)
        this.ambiguous.push({
          entry: `/webhookData/${field}`,
          candidates: unexplained.map(([name, at]) => `${name} (${at.pointer})`),
        });
      else this.set(`/webhookData/${field}`, null, `${event.pointer} (no such field)`);
    }
  }

  private webhookData(): Located | undefined {
    const webhooks = this.walk.child({ node: this.walk.document, pointer: '#' }, 'webhooks');
    if (!isObject(webhooks.node)) return undefined;
    for (const name of Object.keys(webhooks.node)) {
      const post = this.walk.child(webhooks, name, 'post');
      const schema = this.walk.jsonSchema(this.walk.child(post, 'requestBody'));
      if (schema === undefined) continue;
      const event = this.walk.properties(schema).get('event');
      const constant = isObject(event?.node)
        ? (event.node.const ?? (event.node.enum as unknown[] | undefined)?.[0])
        : undefined;
      if (constant !== undefined && constant !== 'email.received') continue;
      const data = this.walk.properties(schema).get('data');
      if (data !== undefined) return data;
    }
    return undefined;
  }

  /** The path of one field in a record's properties: its top property, then inside it. */
  private fieldPath(
    entry: string,
    field: EmailField,
    fields: Map<string, Located>,
    defaultTop: string | undefined,
  ): [string, string] | undefined {
    const accept = (at: Located) => this.fits(field, at);
    const top = this.pick(entry, fields, defaultTop, NAMES[field], accept);
    if (top === undefined) return undefined;
    const [name, at] = top;
    const types = this.walk.types(at);
    const part = ATTACHMENT_PART[field];
    const wantsName = field.endsWith('Name') && field !== 'attachmentName';
    const inner = part ?? (wantsName ? NAME : ADDRESS);
    if (
      (field.startsWith('attachment') && field !== 'attachmentCount') ||
      /^(to|cc|bcc|replyTo)(Address|Name)$/.test(field) ||
      field === 'references'
    ) {
      if (!types.includes('array')) return undefined;
      const items = this.walk.items(at);
      if (items === undefined) return undefined;
      if (field === 'references' || this.walk.types(items).includes('string'))
        return wantsName ? undefined : [`${name}[]`, at.pointer];
      const rest = this.innerPath(
        items,
        inner,
        0,
        field === 'attachmentSize' ? 'integer' : 'string',
      );
      return rest === undefined ? undefined : [`${name}[].${rest[0]}`, rest[1]];
    }
    if (field === 'senderAddress' || field === 'senderName') {
      if (types.includes('string')) return wantsName ? undefined : [name, at.pointer];
      const rest = this.innerPath(at, inner);
      return rest === undefined ? undefined : [`${name}.${rest[0]}`, rest[1]];
    }
    return [name, at.pointer];
  }

  /** Whether a property can hold the field (types agree). */
  private fits(field: EmailField, at: Located): boolean {
    const types = this.walk.types(at);
    if (types.length === 0) return true;
    if (field === 'read' || field === 'starred') return types.includes('boolean');
    if (field === 'attachmentCount') return types.includes('integer') || types.includes('number');
    if (/Address$|Name$/.test(field) || field.startsWith('attachment') || field === 'references')
      return types.some((t) => ['string', 'object', 'array'].includes(t));
    return types.includes('string');
  }

  /** `address` or `emailAddress.address` inside an address object (Graph nests one). */
  private innerPath(
    object: Located,
    pattern: RegExp,
    depth = 0,
    type = 'string',
  ): [string, string] | undefined {
    const properties = this.walk.properties(object);
    const direct = [...properties].filter(
      ([name, at]) => pattern.test(name) && this.walk.types(at).includes(type),
    );
    if (direct.length === 1) return [direct[0]![0], direct[0]![1].pointer];
    if (depth > 1) return undefined;
    for (const [name, at] of properties) {
      if (!this.walk.types(at).includes('object')) continue;
      const rest = this.innerPath(at, pattern, depth + 1, type);
      if (rest !== undefined) return [`${name}.${rest[0]}`, rest[1]];
    }
    return undefined;
  }

  private mailboxes(): void {
    const schema = this.successSchema('get', '/mailboxes');
    if (schema === undefined) return;
    let items: Located | undefined;
    if (this.walk.types(schema).includes('array')) {
      this.set('/mailboxes/array', null, schema.pointer);
      items = this.walk.items(schema);
    } else {
      const arrays = new Map(
        [...this.walk.properties(schema)].filter(([, at]) => this.walk.types(at).includes('array')),
      );
      const found = this.pick('/mailboxes/array', arrays, undefined, /./);
      if (found === undefined) return;
      this.set('/mailboxes/array', found[0], found[1].pointer);
      items = this.walk.items(found[1]);
    }
    if (items === undefined) return;
    const properties = this.walk.properties(items);
    const address = this.pick('/mailboxes/address', properties, 'address', ADDRESS);
    if (address !== undefined) this.set('/mailboxes/address', address[0], address[1].pointer);
    for (const [key, pattern] of [
      ['domain', /^(domain|domainName)$/i],
      ['displayName', /^(displayName|display_name|name)$/i],
    ] as const) {
      const found = this.pick(`/mailboxes/${key}`, properties, key, pattern);
      this.set(
        `/mailboxes/${key}`,
        found?.[0] ?? null,
        found?.[1].pointer ?? `${items.pointer} (no such field)`,
      );
    }
  }

  private send(): void {
    const properties = this.requestProperties('post', '/emails/send');
    if (properties.size === 0) return;
    const found = this.pick('/send/preheader', properties, 'preheader', NAMES.preheader);
    this.set('/send/preheader', found?.[0] ?? null, found?.[1].pointer ?? 'no such field');
  }

  private forward(): void {
    const properties = this.requestProperties('post', '/emails/{emailId}/forward');
    if (properties.size === 0) return;
    const found = this.pick(
      '/forward/recipient',
      properties,
      'to',
      /^(to|toRecipients|to_recipients|recipients|recipient)$/i,
    );
    if (found === undefined) return;
    const [name, at] = found;
    if (this.walk.types(at).includes('string'))
      return this.set('/forward/recipient', name, at.pointer);
    const items = this.walk.items(at);
    if (items === undefined) return;
    if (this.walk.types(items).includes('string'))
      return this.set('/forward/recipient', `${name}[]`, at.pointer);
    const rest = this.innerPath(items, ADDRESS);
    if (rest !== undefined) this.set('/forward/recipient', `${name}[].${rest[0]}`, rest[1]);
  }

  private operations(): void {
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
    const idField = this.binding.email.id ?? 'id';
    const recordFields = new Set(
      [this.binding.email.subject, this.binding.email.mailbox, this.binding.email.folder].filter(
        (f): f is string => f !== null,
      ),
    );
    for (const [key, method, path] of operations) {
      const operation = this.operation(method, path);
      const success = operation && this.walk.success(operation);
      if (success === undefined) continue;
      const [status, response] = success;
      const entry = { ...this.binding.operations[key], status };
      if (key === 'sendEmail' || key === 'replyToEmail' || key === 'forwardEmail') {
        const schema = this.walk.jsonSchema(response);
        const properties =
          schema === undefined ? new Map<string, Located>() : this.walk.properties(schema);
        const isEmail = [...recordFields].every((f) => properties.has(f));
        const created = entry as Binding['operations']['sendEmail'];
        created.answer = isEmail ? 'email' : 'reference';
        const id = this.pick(`/operations/${key}`, properties, idField, NAMES.id);
        if (id !== undefined) created.emailId = `body:/${id[0]}`;
        else if (
          isObject(this.walk.child(response, 'headers', 'Location').node) ||
          isObject(this.walk.child(response, 'headers', 'location').node)
        )
          created.emailId = 'header:Location';
        else
          this.ambiguous.push({
            entry: `/operations/${key}`,
            candidates: ['the answer shows no id field and no Location header'],
          });
      }
      this.set(`/operations/${key}`, entry, response.pointer);
    }
  }

  /** Each error code the document declares, with the statuses it declares it under. */
  private declaredCodes(): Map<string, Map<number, string>> {
    const codes = new Map<string, Map<number, string>>();
    const paths = this.walk.document.paths as Record<string, Record<string, unknown>>;
    for (const [path, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      for (const method of Object.keys(item)) {
        const operation = this.walk.operation(method, path);
        if (operation === undefined || !isObject(operation.node)) continue;
        for (const [status, response] of this.walk.responses(operation)) {
          if (!/^[45]\d\d$/.test(status)) continue;
          for (const code of this.codesOf(response)) {
            const statuses = codes.get(code) ?? new Map<number, string>();
            statuses.set(Number(status), response.pointer);
            codes.set(code, statuses);
          }
        }
      }
    }
    return codes;
  }

  private codesOf(response: Located): string[] {
    const found = new Set<string>();
    const listed = isObject(response.node) ? response.node['x-error-codes'] : undefined;
    if (Array.isArray(listed))
      for (const code of listed) if (typeof code === 'string') found.add(code);
    const schema = this.walk.jsonSchema(response);
    if (schema !== undefined) {
      const code = this.walk.properties(schema).get('code');
      const node = code && this.walk.deref(code).node;
      if (isObject(node)) {
        if (typeof node.const === 'string') found.add(node.const);
        if (Array.isArray(node.enum))
          for (const c of node.enum) if (typeof c === 'string') found.add(c);
      }
    }
    const content = this.walk.child(response, 'content');
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

  private errors(): void {
    const declared = this.declaredCodes();
    if (declared.size === 0) return;
    const conditions = Object.keys(this.binding.errors);
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
            this.ambiguous.push({ entry: `/errors/${condition}`, candidates });
          continue;
        }
        code = candidates[0]!;
      }
      const statuses = [...declared.get(code)!];
      if (statuses.length > 1) {
        this.ambiguous.push({
          entry: `/errors/${condition}`,
          candidates: statuses.map(([s, p]) => `${code} at ${s} (${p})`),
        });
        continue;
      }
      const [status, pointer] = statuses[0]!;
      this.set(`/errors/${condition}`, { status, code }, pointer);
    }
  }

  private folders(): void {
    const candidates: Located[] = [];
    const update = this.operation('patch', '/emails/{emailId}');
    const body = update && this.walk.jsonSchema(this.walk.child(update, 'requestBody'));
    const folderField = body && this.walk.properties(body).get(this.binding.update.folder);
    if (folderField !== undefined) candidates.push(folderField);
    const listFolder = this.operation('get', '/emails');
    const parameters = listFolder && this.walk.child(listFolder, 'parameters');
    if (parameters !== undefined && Array.isArray(parameters.node))
      parameters.node.forEach((_, i) => {
        const parameter = this.walk.child(parameters, String(i));
        if (isObject(parameter.node) && parameter.node.name === 'folder')
          candidates.push(this.walk.child(parameter, 'schema'));
      });
    for (const candidate of candidates) {
      const enumNode = this.enumOf(candidate);
      if (enumNode === undefined) continue;
      const names = enumNode.node as string[];
      this.set('/folders/names', [...names], enumNode.pointer);
      const sent = names.filter((n) => /sent/i.test(n));
      if (sent.length === 1) this.set('/folders/sent', sent[0], enumNode.pointer);
      else if (!names.includes(this.binding.folders.sent))
        this.ambiguous.push({ entry: '/folders/sent', candidates: sent.length > 0 ? sent : names });
      if (names.includes('inbox')) this.set('/folders/received', 'inbox', enumNode.pointer);
      return;
    }
  }

  private enumOf(at: Located): Located | undefined {
    const s = this.walk.deref(at);
    if (!isObject(s.node)) return undefined;
    if (Array.isArray(s.node.enum) && s.node.enum.every((v) => typeof v === 'string'))
      return { node: s.node.enum, pointer: `${s.pointer}/enum` };
    for (const combiner of ['anyOf', 'oneOf', 'allOf'] as const) {
      const parts = s.node[combiner];
      if (!Array.isArray(parts)) continue;
      for (let i = 0; i < parts.length; i++) {
        const found = this.enumOf({ node: parts[i], pointer: `${s.pointer}/${combiner}/${i}` });
        if (found !== undefined) return found;
      }
    }
    return undefined;
  }
}

function topOf(path: string | null): string | undefined {
  return path === null ? undefined : path.split('.')[0]!.replace(/\[\]$/, '');
}
