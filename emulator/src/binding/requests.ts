/**
 * Requests in a deployment's names, turned into the emulator's own before any rule sees them:
 * the PATCH fields (§4.5 "Request field names: not shown"), the forward recipient (§4.8 "The
 * recipient field name ... not shown"), the preheader of send, reply and forward (§4.3 "The
 * name of the request field for the preheader ... not shown") and folder names (§3.1). Pure
 * functions: each returns the renamed body and, for error answers, the wire name of each
 * internal field it renamed.
 */
import type { Binding } from './binding.ts';
import { internalFolder, type FolderMap } from './folders.ts';
import { INVALID, MISSING, parsePath, readPath, topName } from './paths.ts';

type Json = Record<string, unknown>;

/** A body as the emulator reads it, and how to name its fields back to the client. */
export interface Renamed {
  body: Json;
  /** Internal field (as an error's `field` names it) → the name the client sent. */
  wireNames: Map<string, string>;
}

/** Sets a member, even one named `__proto__` (JSON.parse makes such members own ones). */
export function put(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * A name the client sent that is the emulator's own name for a field the deployment names
 * otherwise: unknown in the dialect (D-31), so it is sent on under a name no schema takes and
 * the refusal names it back as sent.
 */
function unknownMarker(name: string): string {
  return `${name}\u0000`;
}

/**
 * Renames the top-level members of `body`: `renames` maps wire → internal. A member named like
 * an internal target but not a wire name becomes unknown (see unknownMarker).
 */
function renameMembers(body: Json, renames: ReadonlyMap<string, string>): Renamed {
  const targets = new Set(renames.values());
  const out: Json = {};
  const wireNames = new Map<string, string>();
  for (const [key, value] of Object.entries(body)) {
    const internal = renames.get(key);
    if (internal !== undefined) {
      put(out, internal, value);
      wireNames.set(internal, key);
    } else if (targets.has(key)) {
      put(out, unknownMarker(key), value);
      wireNames.set(unknownMarker(key), key);
    } else {
      put(out, key, value);
    }
  }
  return { body: out, wireNames };
}

/** PATCH /emails/{emailId}: the bound field names, and the folder value in the store's names. */
export function updateRequest(body: Json, binding: Binding, folders: FolderMap): Renamed {
  const { folder, read, starred } = binding.update;
  const renames = new Map(
    [
      [folder, 'folder'],
      [read, 'read'],
      [starred, 'starred'],
    ].filter(([wire, internal]) => wire !== internal) as [string, string][],
  );
  const renamed = renameMembers(body, renames);
  for (const [wire, internal] of [
    [folder, 'folder'],
    [read, 'read'],
    [starred, 'starred'],
  ])
    if (!renamed.wireNames.has(internal as string))
      renamed.wireNames.set(internal as string, wire as string);
  const value = renamed.body.folder;
  if (typeof value === 'string') renamed.body.folder = internalFolder(folders, value);
  return renamed;
}

/** POST send and reply: the preheader's name. */
export function sendRequest(body: Json, binding: Binding): Renamed {
  const wire = binding.send.preheader;
  const renames = new Map<string, string>();
  if (wire !== 'preheader' && wire !== null) renames.set(wire, 'preheader');
  // No preheader field at all: `preheader` is as unknown as any other made-up name.
  const renamed =
    wire === null
      ? renameMembers(body, new Map([['\u0000none', 'preheader']]))
      : renameMembers(body, renames);
  if (wire !== null) renamed.wireNames.set('preheader', wire);
  return renamed;
}

/**
 * POST forward: the recipient read from its path (one address; a list path takes a list of
 * one) into `to` (D-23), and the preheader's name.
 */
export function forwardRequest(body: Json, binding: Binding): Renamed {
  const renamed = sendRequest(body, binding);
  const text = binding.forward.recipient as string;
  if (text === 'to') return renamed;
  const path = parsePath(text);
  const top = topName(path);
  const out: Json = {};
  for (const [key, value] of Object.entries(renamed.body)) {
    if (key === top) continue;
    if (key === 'to') {
      put(out, unknownMarker('to'), value);
      renamed.wireNames.set(unknownMarker('to'), 'to');
      continue;
    }
    put(out, key, value);
  }
  const found = readPath(renamed.body, path);
  if (found !== MISSING) {
    // A shape other than the path's, or more than one address: a value `to` refuses.
    out.to =
      found === INVALID
        ? {}
        : Array.isArray(found)
          ? found.length === 1 && typeof found[0] === 'string'
            ? found[0]
            : found.length === 0
              ? []
              : found
          : found;
  }
  renamed.wireNames.set('to', top);
  return { body: out, wireNames: renamed.wireNames };
}

/**
 * GET /emails: the `folder` query value in the store's names; the rest of the query string is
 * kept byte for byte (the response cache keys on it).
 */
export function listQuery(search: string, folders: FolderMap): string {
  if (!search.includes('folder=')) return search;
  return search.replace(/([?&]folder=)([^&]*)/g, (_all, head: string, raw: string) => {
    let value: string;
    try {
      value = decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      return `${head}${raw}`;
    }
    return `${head}${encodeURIComponent(internalFolder(folders, value))}`;
  });
}
