/**
 * Paths into JSON records, as a binding writes them (spec/binding.schema.json): `a.b` is
 * property b of property a, `a[]` is each item of array a. `to[].address` reads the address of
 * every To recipient; `references[]` every item of an array of strings.
 */

interface Segment {
  name: string;
  /** The value is an array whose every item the rest of the path continues into. */
  each: boolean;
}

export type RecordPath = readonly Segment[];

export function parseRecordPath(text: string): RecordPath {
  return text.split('.').map((part) => {
    const each = part.endsWith('[]');
    return { name: each ? part.slice(0, -2) : part, each };
  });
}

/** The first property name of a path: the record field it starts from. */
export function topField(path: RecordPath): string {
  return path[0]!.name;
}

/**
 * The value at `path`, or undefined when any step is missing; an `[]` step gives an array of
 * what the rest of the path reads from each item (items without it give undefined).
 */
export function readPath(record: unknown, path: RecordPath): unknown {
  if (path.length === 0) return record;
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (!Object.hasOwn(record, head.name)) return undefined;
  const value = (record as Record<string, unknown>)[head.name];
  if (!head.each) return readPath(value, rest);
  if (!Array.isArray(value)) return value === null ? null : undefined;
  return value.map((item) => readPath(item, rest));
}

/**
 * Writes `value` at `path` in `record`, making the objects and arrays on the way; at an `[]`
 * step `value` must be an array, whose items go to the items of that index (merged with what
 * another path already wrote there: `to[].address` and `to[].name` build one list).
 */
export function writePath(record: Record<string, unknown>, path: RecordPath, value: unknown): void {
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (!head.each) {
    if (rest.length === 0) {
      record[head.name] = value;
      return;
    }
    const next = record[head.name];
    const child =
      typeof next === 'object' && next !== null && !Array.isArray(next)
        ? (next as Record<string, unknown>)
        : {};
    record[head.name] = child;
    writePath(child, rest, value);
    return;
  }
  if (!Array.isArray(value)) {
    record[head.name] = value;
    return;
  }
  if (rest.length === 0) {
    record[head.name] = [...value];
    return;
  }
  const existing = Array.isArray(record[head.name]) ? (record[head.name] as unknown[]) : [];
  record[head.name] = value.map((item, index) => {
    const slot = existing[index];
    const child =
      typeof slot === 'object' && slot !== null && !Array.isArray(slot)
        ? { ...(slot as Record<string, unknown>) }
        : {};
    if (item !== undefined) writePath(child, rest, item);
    return child;
  });
}
