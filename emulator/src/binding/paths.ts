/**
 * Paths into JSON records as a binding writes them (spec/binding.schema.json): `a.b` is
 * property b of property a, `a[]` is each item of array a. `to[].address` is the address of
 * every To recipient (§2.3 "recipients"), `references[]` each item of an array of strings,
 * `toRecipients[].emailAddress.address` Microsoft Graph's shape.
 */

export interface Segment {
  name: string;
  /** The value is an array; the rest of the path continues into each item. */
  each: boolean;
}

export type RecordPath = readonly Segment[];

export function parsePath(text: string): RecordPath {
  return text.split('.').map((part) => {
    const each = part.endsWith('[]');
    return { name: each ? part.slice(0, -2) : part, each };
  });
}

/** How many `[]` steps a path has. */
export function arraySteps(path: RecordPath): number {
  return path.filter((s) => s.each).length;
}

/** The property a path starts from: the field a client sends or reads first. */
export function topName(path: RecordPath): string {
  return (path[0] as Segment).name;
}

type Json = Record<string, unknown>;

function childObject(parent: Json, name: string): Json {
  const next = parent[name];
  if (typeof next === 'object' && next !== null && !Array.isArray(next)) return next as Json;
  const made: Json = {};
  parent[name] = made;
  return made;
}

/**
 * Writes `value` at `path`. At the path's `[]` step (at most one, load.ts) `value` is a list
 * whose items go to the items of the same index, so `to[].address` and `to[].name` build one
 * list; a list of none still makes the empty array.
 */
export function writePath(record: Json, path: RecordPath, value: unknown): void {
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (head.each) {
    const values = Array.isArray(value) ? value : [value];
    const existing = record[head.name];
    const items = Array.isArray(existing) ? (existing as unknown[]) : [];
    record[head.name] = items;
    values.forEach((item, i) => {
      if (rest.length === 0) {
        items[i] = item;
        return;
      }
      const slot = items[i];
      const target =
        typeof slot === 'object' && slot !== null && !Array.isArray(slot) ? (slot as Json) : {};
      items[i] = target;
      writePath(target, rest, item);
    });
    return;
  }
  if (rest.length === 0) {
    record[head.name] = value;
    return;
  }
  writePath(childObject(record, head.name), rest, value);
}

/** What a request holds at `path`: one value, or a list at an `[]` step; `invalid` if the shape is not the path's. */
export function readPath(record: unknown, path: RecordPath): unknown {
  if (path.length === 0) return record;
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return INVALID;
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (!Object.hasOwn(record, head.name)) return MISSING;
  const value = (record as Json)[head.name];
  if (!head.each) return readPath(value, rest);
  if (!Array.isArray(value)) return INVALID;
  const items = value.map((item) => readPath(item, rest));
  return items.some((item) => item === INVALID || item === MISSING || Array.isArray(item))
    ? INVALID
    : items;
}

/** The shape of a request did not follow the path. */
export const INVALID = Symbol('invalid');
/** The path's field was not sent. */
export const MISSING = Symbol('missing');

/**
 * The first pair of paths that cannot live in one record: the same path twice, one path the
 * prefix of another (`from` and `from.name`), or a property an array for one and an object or
 * a value for the other. Undefined when they fit together.
 */
export function collision(paths: readonly string[]): [string, string] | undefined {
  const parsed = paths.map((text) => ({ text, path: parsePath(text) }));
  for (let i = 0; i < parsed.length; i += 1) {
    for (let j = i + 1; j < parsed.length; j += 1) {
      const a = parsed[i] as { text: string; path: RecordPath };
      const b = parsed[j] as { text: string; path: RecordPath };
      if (clash(a.path, b.path)) return [a.text, b.text];
    }
  }
  return undefined;
}

function clash(a: RecordPath, b: RecordPath): boolean {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k += 1) {
    const x = a[k] as Segment;
    const y = b[k] as Segment;
    if (x.name !== y.name) return false;
    if (x.each !== y.each) return true;
  }
  // One is a prefix of the other (or both equal): a leaf where the other needs an object.
  return true;
}
