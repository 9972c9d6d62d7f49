/**
 * A deployment's folder names onto the five the store keeps (D-5: inbox, sent, archive, spam,
 * trash). §3.1 names inbox and trash ("includes inbox and trash"); the rest is "not shown".
 * inbox and trash keep their names, `folders.sent` is where sent copies land, and the other
 * names take archive and spam in order (load.ts allows at most five names).
 */
import type { Binding } from './binding.ts';

export interface FolderMap {
  /** The deployment's name → the stored one. */
  toInternal: ReadonlyMap<string, string>;
  /** The stored name → the deployment's; a stored folder the deployment lacks has none. */
  toWire: ReadonlyMap<string, string>;
  /** Every name the deployment accepts, in its order. */
  names: readonly string[];
}

const SPARE = ['archive', 'spam'] as const;

export function folderMap(folders: Binding['folders']): FolderMap {
  const toInternal = new Map<string, string>();
  const spare = [...SPARE];
  for (const name of folders.names) {
    const internal =
      name === 'inbox' || name === 'trash' ? name : name === folders.sent ? 'sent' : spare.shift();
    if (internal !== undefined) toInternal.set(name, internal);
  }
  const toWire = new Map([...toInternal].map(([wire, internal]) => [internal, wire]));
  return { toInternal, toWire, names: folders.names };
}

/** A stored folder in the deployment's name (a folder it lacks keeps the stored name). */
export function wireFolder(map: FolderMap, internal: unknown): unknown {
  return typeof internal === 'string' ? (map.toWire.get(internal) ?? internal) : internal;
}

/**
 * A folder a client named, as the store names it. A name the deployment does not accept stays
 * one the store refuses too (a stored name it does not accept gets a `~` in front), so the
 * request fails with invalid_folder as it would there.
 */
export function internalFolder(map: FolderMap, wire: string): string {
  const known = map.toInternal.get(wire);
  if (known !== undefined) return known;
  return STORED.has(wire) ? `~${wire}` : wire;
}

const STORED = new Set(['inbox', 'sent', 'archive', 'spam', 'trash']);
