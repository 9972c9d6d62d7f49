/**
 * The suite's side of a binding: checks speak one vocabulary (the default binding's names,
 * spec/bindings/decisions.yaml), and the client translates each request into the target's
 * names and each answer back, through the target's binding. A name a target decided is read
 * from its binding, here, and nowhere else in the suite.
 */
import {
  EMAIL_FIELDS,
  bindingHash,
  defaultBinding,
  type Binding,
  type BoundError,
  type CreatingOperation,
  type EmailField,
  type ResolvedBinding,
  sameEntries,
} from './binding.ts';
import { parseRecordPath, readPath, topField, writePath, type RecordPath } from './record-path.ts';

type Record_ = Record<string, unknown>;

/** One record field: where the checks read it, and where the target puts it. */
interface FieldMapping {
  canonical: RecordPath;
  wire: RecordPath;
  folder: boolean;
}

/** An answer as the checks see it: status, code and names of the default binding. */
export interface CanonicalAnswer {
  status: number;
  /** The JSON body, translated; undefined when the answer had no JSON body. */
  json?: unknown;
}

const CREATING = new Set<string>(['sendEmail', 'replyToEmail', 'forwardEmail']);
const WITH_PREHEADER = new Set<string>(['sendEmail', 'replyToEmail', 'forwardEmail']);

function isRecord(value: unknown): value is Record_ {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Dialect {
  readonly binding: Binding;
  /** The default binding: what checks write and read. */
  private readonly canonical = defaultBinding();
  /** No entry differs from the default: every translation is the identity. */
  readonly isDefault: boolean;
  private readonly emailFields: FieldMapping[];
  private readonly dataFields: FieldMapping[];
  private readonly errorsByAnswer = new Map<string, string[]>();
  private readonly folderToWire = new Map<string, string>();
  private readonly folderFromWire = new Map<string, string>();

  /**
   * `conditionsOf`: the error conditions (mailtwin's codes) an operation can meet, from the
   * suite's contract; it narrows an answer a deployment gives several conditions alike.
   */
  constructor(
    readonly resolved: ResolvedBinding,
    private readonly conditionsOf: (operationId: string) => ReadonlySet<string> = () => new Set(),
  ) {
    this.binding = resolved.binding;
    this.isDefault =
      resolved.sha256 === bindingHash({ ...this.canonical, name: resolved.binding.name });
    this.emailFields = this.mappings(EMAIL_FIELDS, this.binding.email);
    // `data` is the email record (D-37): id and mailbox by §6.2's names, the entries the
    // binding gives for webhooks, and every other field as the record names it.
    this.dataFields = this.mappings(EMAIL_FIELDS, {
      ...this.binding.email,
      ...this.binding.webhookData,
      id: 'id',
      mailbox: 'mailbox',
    });
    for (const [condition, bound] of Object.entries(this.binding.errors)) {
      const key = `${bound.status} ${bound.code}`;
      this.errorsByAnswer.set(key, [...(this.errorsByAnswer.get(key) ?? []), condition]);
    }
    for (const [ours, theirs] of folderPairs(this.canonical.folders, this.binding.folders)) {
      this.folderToWire.set(ours, theirs);
      this.folderFromWire.set(theirs, ours);
    }
  }

  private mappings(keys: readonly EmailField[], wire: Partial<Record<EmailField, string | null>>) {
    const result: FieldMapping[] = [];
    for (const key of keys) {
      const theirs = wire[key];
      const ours = this.canonical.email[key];
      if (theirs === null || theirs === undefined || ours === null) continue;
      result.push({
        canonical: parseRecordPath(ours),
        wire: parseRecordPath(theirs),
        folder: key === 'folder',
      });
    }
    return result;
  }

  /** The target's name for a folder the checks name (`sent` is where sent copies land). */
  folder(name: string): string {
    return this.folderToWire.get(name) ?? name;
  }

  /** The checks' name for a folder the target names. */
  canonicalFolder(name: string): string {
    return this.folderFromWire.get(name) ?? name;
  }

  /**
   * Whether the target's email record has a field the checks name (`from`, `attachments`): a
   * binding may say a deployment has no such field (its paths null).
   */
  hasEmailField(field: string): boolean {
    const entries = EMAIL_FIELDS.filter((key) => {
      const ours = this.canonical.email[key];
      return ours !== null && topField(parseRecordPath(ours)) === field;
    });
    return entries.length === 0 || entries.some((key) => this.binding.email[key] !== null);
  }

  /** The status and code the target answers for an error condition (mailtwin's code). */
  error(condition: string): BoundError | undefined {
    return this.binding.errors[condition];
  }

  /** Whether a raw answer is the one the binding gives for an error condition. */
  answersError(condition: string, status: number, rawText: string): boolean {
    const bound = this.binding.errors[condition];
    if (bound === undefined || bound.status !== status) return false;
    try {
      return (JSON.parse(rawText) as { code?: unknown } | null)?.code === bound.code;
    } catch {
      return false;
    }
  }

  /** The success status the target answers for an operation. */
  successStatus(operationId: string): number | undefined {
    return (this.binding.operations as Record<string, { status: number } | undefined>)[operationId]
      ?.status;
  }

  /** How a send, reply or forward answers: the created email, or a reference to it. */
  created(operationId: string): Binding['operations'][CreatingOperation] | undefined {
    return CREATING.has(operationId)
      ? this.binding.operations[operationId as CreatingOperation]
      : undefined;
  }

  /** A request body in the target's names (PATCH fields, forward recipient, preheader). */
  requestJson(operationId: string | undefined, json: unknown): unknown {
    if (this.isDefault || !isRecord(json) || operationId === undefined) return json;
    const out: Record_ = { ...json };
    const rename = (ours: string, theirs: string | null, value = (v: unknown) => v) => {
      if (!Object.hasOwn(json, ours) || theirs === null || theirs === ours) {
        if (Object.hasOwn(json, ours)) out[ours] = value(json[ours]);
        return;
      }
      delete out[ours];
      const path = parseRecordPath(theirs);
      const v = value(json[ours]);
      writePath(out, path, path.some((s) => s.each) && !Array.isArray(v) ? [v] : v);
    };
    if (operationId === 'updateEmail') {
      const folder = (v: unknown) => (typeof v === 'string' ? this.folder(v) : v);
      rename('folder', this.binding.update.folder, folder);
      rename('read', this.binding.update.read);
      rename('starred', this.binding.update.starred);
    }
    if (operationId === 'forwardEmail') rename('to', this.binding.forward.recipient);
    if (WITH_PREHEADER.has(operationId))
      rename('preheader', this.binding.send.preheader ?? 'preheader');
    return out;
  }

  /** A query in the target's names: the folder filter's value. */
  requestQuery<T>(operationId: string | undefined, query: Record<string, T>): Record<string, T> {
    if (this.isDefault || operationId !== 'listEmails' || typeof query.folder !== 'string')
      return query;
    return { ...query, folder: this.folder(query.folder) as T };
  }

  /**
   * An answer in the checks' names: a success status the binding gives becomes the default's,
   * an error the binding maps back to one condition becomes that condition's status and code,
   * and records are renamed. What the binding does not explain is left as the target sent it,
   * so an assertion on it fails (charged to the decision it departs from).
   */
  canonicalAnswer(operationId: string | undefined, status: number, json: unknown): CanonicalAnswer {
    if (this.isDefault || operationId === undefined) return { status, json };
    if (status >= 400) return this.canonicalError(operationId, status, json);
    const ours = this.canonical.operations as Record<string, { status: number } | undefined>;
    const canonicalStatus =
      this.successStatus(operationId) === status ? (ours[operationId]?.status ?? status) : status;
    return { status: canonicalStatus, json: this.canonicalBody(operationId, json) };
  }

  private canonicalError(operationId: string, status: number, json: unknown): CanonicalAnswer {
    if (!isRecord(json) || typeof json.code !== 'string') return { status, json };
    const answering = this.errorsByAnswer.get(`${status} ${json.code}`) ?? [];
    // A deployment may answer several conditions alike (one 404 not_found): those the
    // operation can meet (our contract's error codes for it) may still leave one.
    const possible = this.conditionsOf(operationId);
    const narrowed = answering.filter((c) => possible.has(c));
    const conditions = answering.length > 1 && narrowed.length > 0 ? narrowed : answering;
    const body: Record_ = { ...json };
    if (typeof json.field === 'string') body.field = this.canonicalField(operationId, json.field);
    if (conditions.length !== 1) return { status, json: body };
    const condition = conditions[0]!;
    body.code = condition;
    return { status: this.canonical.errors[condition]?.status ?? status, json: body };
  }

  /** An error's `field` naming a renamed request field, in the checks' names. */
  private canonicalField(operationId: string, field: string): string {
    const names: [string, string | null][] = [];
    if (operationId === 'updateEmail')
      for (const key of ['folder', 'read', 'starred'] as const)
        names.push([key, this.binding.update[key]]);
    if (operationId === 'forwardEmail')
      names.push(['to', topField(parseRecordPath(this.binding.forward.recipient))]);
    if (WITH_PREHEADER.has(operationId)) names.push(['preheader', this.binding.send.preheader]);
    for (const [ours, theirs] of names) {
      if (theirs === null) continue;
      if (field === theirs) return ours;
      if (field.startsWith(`${theirs}.`) || field.startsWith(`${theirs}[`))
        return ours + field.slice(theirs.length);
    }
    return field;
  }

  private canonicalBody(operationId: string, json: unknown): unknown {
    switch (operationId) {
      case 'listMailboxes':
        return this.canonicalMailboxes(json);
      case 'listEmails': {
        if (!isRecord(json)) return json;
        const { [this.binding.list.array]: items, ...rest } = json;
        if (items === undefined) return json;
        return {
          ...rest,
          [this.canonical.list.array]: Array.isArray(items)
            ? items.map((e) => this.canonicalEmail(e))
            : items,
        };
      }
      case 'getEmail':
      case 'updateEmail':
        return this.canonicalEmail(json);
      case 'sendEmail':
      case 'replyToEmail':
      case 'forwardEmail':
        return this.created(operationId)?.answer === 'email' ? this.canonicalEmail(json) : json;
      default:
        return json;
    }
  }

  private canonicalMailboxes(json: unknown): unknown {
    const { array, address, domain, displayName } = this.binding.mailboxes;
    const items = array === null ? json : isRecord(json) ? json[array] : undefined;
    if (!Array.isArray(items)) return json;
    return items.map((item) => {
      if (!isRecord(item)) return item;
      const out: Record_ = { ...item };
      for (const [ours, theirs] of [
        ['address', address],
        ['domain', domain],
        ['displayName', displayName],
      ] as const) {
        if (theirs === null || theirs === ours) continue;
        const path = parseRecordPath(theirs);
        const value = readPath(item, path);
        delete out[topField(path)];
        if (value !== undefined) out[ours] = value;
      }
      return out;
    });
  }

  /** An email record (list item, detail, or a send's answer) in the checks' names. */
  canonicalEmail(record: unknown): unknown {
    return this.isDefault ? record : this.renamed(record, this.emailFields);
  }

  /** The `data` of an email.received delivery in the checks' names (id and mailbox stay). */
  canonicalWebhookData(data: unknown): unknown {
    return this.isDefault ? data : this.renamed(data, this.dataFields);
  }

  private renamed(record: unknown, fields: FieldMapping[]): unknown {
    if (!isRecord(record)) return record;
    const consumed = new Set(fields.map((f) => topField(f.wire)));
    const out: Record_ = {};
    for (const [key, value] of Object.entries(record)) if (!consumed.has(key)) out[key] = value;
    for (const field of fields) {
      let value = readPath(record, field.wire);
      if (value === undefined) continue;
      if (field.folder && typeof value === 'string') value = this.canonicalFolder(value);
      writePath(out, field.canonical, value);
    }
    return out;
  }
}

/**
 * Which folder of the target each of the checks' folders is: inbox and trash are the
 * document's own (§3.1), the sent copies' and received mail's folders are named by the binding,
 * and the checks' other folders (D-5's archive, spam) take the target's others in order. A
 * folder of either side left over keeps its name.
 */
function folderPairs(ours: Binding['folders'], theirs: Binding['folders']): [string, string][] {
  const pairs: [string, string][] = [
    ['inbox', 'inbox'],
    ['trash', 'trash'],
    [ours.sent, theirs.sent],
    [ours.received, theirs.received],
  ];
  const named = (side: Binding['folders'], index: 0 | 1) =>
    side.names.filter((n) => !pairs.some((pair) => pair[index] === n));
  const otherOurs = named(ours, 0);
  const otherTheirs = named(theirs, 1);
  otherOurs.forEach((name, i) => {
    if (otherTheirs[i] !== undefined) pairs.push([name, otherTheirs[i]]);
  });
  return pairs;
}

/** The dialect of the default binding: every translation the identity. */
export function defaultDialect(): Dialect {
  const binding = defaultBinding();
  const sources = Object.fromEntries(
    Object.keys(binding)
      .filter((k) => k !== 'binding' && k !== 'name')
      .flatMap((section) =>
        Object.keys((binding as unknown as Record<string, Record_>)[section]!).map((key) => [
          `/${section}/${key}`,
          'default',
        ]),
      ),
  );
  return new Dialect({ binding, sources, sha256: bindingHash(binding) });
}
