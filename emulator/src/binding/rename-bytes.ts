/**
 * A request body renamed from a deployment's names into the emulator's, bytes to bytes, so a
 * large one can be renamed on a render thread (issue 27 item 1): decoding, parsing and writing
 * back 24 MB of JSON held the event loop for about a second under `serve --binding`.
 */
import type { Binding, OperationName } from './binding.ts';
import { folderMap, type FolderMap } from './folders.ts';
import { forwardRequest, sendRequest, updateRequest, type Renamed } from './requests.ts';

/** The operations whose request body the binding renames. */
export const RENAMES: Partial<
  Record<OperationName, (body: Record<string, unknown>, b: Binding, f: FolderMap) => Renamed>
> = {
  updateEmail: updateRequest,
  sendEmail: (body, b) => sendRequest(body, b),
  replyToEmail: (body, b) => sendRequest(body, b),
  forwardEmail: (body, b) => forwardRequest(body, b),
};

/** A renamed body, and what the dialect keeps of the renaming for the answer. */
export interface RenamedBytes {
  /** The body in the emulator's names; the bytes given when it is not a JSON object. */
  bytes: Uint8Array;
  /** Internal field → the name the client sent, as Renamed.wireNames. */
  wireNames: [internal: string, wire: string][];
  /** PATCH: the folder as the client named it. */
  sentFolder?: string;
}

/**
 * Renames `bytes` (UTF-8 JSON) for `operation`. A body that is not a JSON object is returned
 * as it came, for the route to refuse (invalid_json) as it would any other.
 */
export function renameRequestBytes(
  operation: OperationName,
  bytes: Uint8Array,
  binding: Binding,
  folders: FolderMap = folderMap(binding.folders),
): RenamedBytes {
  const rename = RENAMES[operation];
  if (rename === undefined) return { bytes, wireNames: [] };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { bytes, wireNames: [] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { bytes, wireNames: [] };
  const renamed = rename(value as Record<string, unknown>, binding, folders);
  const folder =
    operation === 'updateEmail'
      ? (value as Record<string, unknown>)[binding.update.folder]
      : undefined;
  return {
    bytes: new TextEncoder().encode(JSON.stringify(renamed.body)),
    wireNames: [...renamed.wireNames],
    ...(typeof folder === 'string' ? { sentFolder: folder } : {}),
  };
}
