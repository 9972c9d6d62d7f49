/**
 * A render thread (render-pool.ts): renders one body at a time off the main thread, so a large
 * or slow body never holds the event loop that answers every other request. It also parses and
 * validates large requests (http/prepare-request.ts) and parses large raw messages received
 * (mime/parse-message.ts) for the same reason.
 */
import { parentPort } from 'node:worker_threads';
import { boxesOf, renderBody, type BodyJob, type BodyResult } from './render-body.ts';
import { prepareRequest, transfersOf, type Prepared } from '../http/prepare-request.ts';
import { renameRequestBytes, type RenamedBytes } from '../binding/rename-bytes.ts';
import type { Binding, OperationName } from '../binding/binding.ts';
import { parsePacked, type PackedMessage } from './parse-off-thread.ts';

/** A request body in a binding's names (binding/rename-bytes.ts). */
export interface RenameTask {
  operation: OperationName;
  bytes: Uint8Array;
  binding: Binding;
}

/** What the pool posts, and what it gets back for the same id. */
export type RenderRequest =
  | { id: number; job: BodyJob }
  | { id: number; parse: { schemaName: string; bytes: Uint8Array } }
  | { id: number; rename: RenameTask }
  | { id: number; message: Uint8Array };

/**
 * A rendered body as it crosses back: its parts as UTF-8 bytes, moved rather than copied (a
 * string of megabytes costs the receiving thread hundreds of milliseconds to deserialize).
 */
export type PackedResult =
  | Exclude<BodyResult, { ok: true }>
  | {
      ok: true;
      preheader: Uint8Array | null;
      text: Uint8Array | null;
      html: Uint8Array | null;
      /** null when it is the text part itself. */
      plain: Uint8Array | null;
      plainIsText: boolean;
      raw: Uint8Array;
    };

/** A render's answer gives back the body's bytes it was lent (`returned`, boxesOf's order). */
export type RenderReply =
  | { id: number; result: PackedResult; returned: Uint8Array[] }
  | { id: number; prepared: Prepared }
  | { id: number; renamed: RenamedBytes }
  | { id: number; message: PackedMessage }
  | { id: number; error: string; returned?: Uint8Array[] };

function pack(result: BodyResult): { packed: PackedResult; transfer: ArrayBuffer[] } {
  if (!result.ok) return { packed: result, transfer: [] };
  const encoder = new TextEncoder();
  const bytes = (part: string | null) => (part === null ? null : encoder.encode(part));
  const plainIsText = result.plain === result.text;
  const packed = {
    ok: true,
    preheader: bytes(result.preheader),
    text: bytes(result.text),
    html: bytes(result.html),
    plain: plainIsText ? null : bytes(result.plain),
    plainIsText,
    raw: own(result.raw),
  } as const;
  const transfer = [packed.preheader, packed.text, packed.html, packed.plain, packed.raw]
    .filter((p): p is Uint8Array => p !== null)
    .map((p) => p.buffer as ArrayBuffer);
  return { packed, transfer: [...new Set(transfer)] };
}

/**
 * Bytes that can be moved: a view of a whole buffer of its own. A Buffer may share Node's pool
 * (which cannot be moved), so such a view is copied first.
 */
function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes
    : new Uint8Array(bytes);
}

const port = parentPort;
if (port !== null) {
  const fail =
    (id: number, returned: Uint8Array[] = []) =>
    (error: unknown) =>
      port.postMessage(
        {
          id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
          returned,
        } satisfies RenderReply,
        returned.map((bytes) => bytes.buffer as ArrayBuffer),
      );
  port.on('message', (request: RenderRequest) => {
    const { id } = request;
    if ('rename' in request) {
      const { operation, bytes, binding } = request.rename;
      try {
        const renamed = renameRequestBytes(operation, bytes, binding);
        const out = own(renamed.bytes);
        port.postMessage({ id, renamed: { ...renamed, bytes: out } } satisfies RenderReply, [
          out.buffer as ArrayBuffer,
        ]);
      } catch (error) {
        fail(id)(error);
      }
      return;
    }
    if ('message' in request) {
      parsePacked(request.message).then(
        ({ packed, transfer }) =>
          port.postMessage({ id, message: packed } satisfies RenderReply, transfer),
        fail(id),
      );
      return;
    }
    if ('parse' in request) {
      try {
        const prepared = prepareRequest(request.parse.schemaName, request.parse.bytes);
        port.postMessage({ id, prepared } satisfies RenderReply, transfersOf(prepared));
      } catch (error) {
        fail(id)(error);
      }
      return;
    }
    const returned = boxesOf(request.job).map((box) => box.bytes);
    const lent = returned.map((bytes) => bytes.buffer as ArrayBuffer);
    renderBody(request.job).then(
      (result) => {
        const { packed, transfer } = pack(result);
        port.postMessage({ id, result: packed, returned } satisfies RenderReply, [
          ...new Set([...transfer, ...lent]),
        ]);
      },
      fail(id, returned),
    );
  });
}
