/**
 * The dialect: the emulator speaking a deployment's binding at its edge, in one middleware
 * mounted on /openapi/v1 (app.ts). Requests are renamed into the emulator's own names before
 * any route reads them, answers (successes and errors) into the deployment's after; rules,
 * storage and the response cache (which keeps the emulator's own bytes, behind this) are
 * untouched. With the default binding nothing is mounted (app.ts).
 */
import type { Context, MiddlewareHandler } from 'hono';
import {
  answerContext,
  idHeader,
  operationOf,
  renderError,
  renderSuccess,
  type AnswerContext,
} from './answers.ts';
import { CREATING_OPERATIONS, type Binding, type OperationName } from './binding.ts';
import { folderMap } from './folders.ts';
import { sharedRenderPool } from '../mime/render-pool.ts';
import { renderEmail, webhookDataLayout, type RecordLayout } from './records.ts';
import { RENAMES, renameRequestBytes, type RenamedBytes } from './rename-bytes.ts';
import { listQuery } from './requests.ts';

const BASE = '/openapi/v1';

/**
 * Lets the event loop answer what waits before going on, as services/next-turn.ts does (two
 * `setImmediate`s, so that the loop polls for I/O in between even when called from an I/O
 * callback).
 */
const nextTurn = (): Promise<void> =>
  new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

export interface Dialect {
  binding: Binding;
  /** The /openapi/v1 middleware. */
  middleware: MiddlewareHandler;
  /** §6.2: the `data` of email.received in the binding's names, before it is signed (§6.3). */
  webhookData: (data: unknown) => unknown;
}

export function createDialect(
  binding: Binding,
  renameOffThread: OffThreadRenamer = (operation, bytes, b) =>
    sharedRenderPool.rename(operation, bytes, b),
): Dialect {
  const folders = folderMap(binding.folders);
  const context: AnswerContext = answerContext(binding);
  const dataLayout: RecordLayout = webhookDataLayout(binding);
  return {
    binding,
    middleware: dialectMiddleware(context, renameOffThread),
    webhookData: (data) =>
      typeof data === 'object' && data !== null
        ? renderEmail(data as Record<string, unknown>, dataLayout, folders)
        : data,
  };
}

/**
 * Bodies of more than this many bytes are renamed on a render thread: parsing and writing back
 * megabytes of JSON would hold the event loop (issue 27 item 1). The size from which a send's
 * body is parsed on one anyway (services/send-service.ts RAW_REQUEST_BYTES).
 */
export const OFF_THREAD_BYTES = 64 * 1024;

/** Renames a large body off the event loop; the render threads' by default. */
export type OffThreadRenamer = (
  operation: OperationName,
  bytes: Uint8Array,
  binding: Binding,
) => Promise<RenamedBytes>;

function dialectMiddleware(
  context: AnswerContext,
  renameOffThread: OffThreadRenamer,
): MiddlewareHandler {
  const { binding, folders } = context;
  return async (c, next) => {
    const url = new URL(c.req.url);
    const operation = operationOf(c.req.method, url.pathname.slice(BASE.length));
    const wireNames = new Map<string, string>();
    let sentFolder: string | undefined;

    if (operation === 'listEmails' && url.search.includes('folder=')) {
      sentFolder = url.searchParams.get('folder') ?? undefined;
      const search = listQuery(url.search, folders);
      // Every reader of the query (parameter checks, the list, the response cache's key) reads
      // c.req.url, so this one place renames it for all of them.
      if (search !== url.search)
        Object.defineProperty(c.req, 'url', { value: `${url.origin}${url.pathname}${search}` });
    }
    const rename =
      operation === undefined || operation === 'deleteEmail' ? undefined : RENAMES[operation];
    if (rename !== undefined) {
      // Names an error may give before the body is read (a forward without its recipient).
      rename({}, binding, folders).wireNames.forEach((wire, internal) =>
        wireNames.set(internal, wire),
      );
      const read = c.req.arrayBuffer.bind(c.req);
      // Read lazily, where the route reads it (as text, or as bytes: a large send's body goes
      // to a render thread as bytes), after authentication and the body limit; once.
      let renamedBytes: Promise<Uint8Array> | undefined;
      const renamed = () => (renamedBytes ??= renameBody());
      c.req.text = async () => new TextDecoder().decode(await renamed());
      c.req.arrayBuffer = async () => {
        const bytes = await renamed();
        return (
          bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
            ? bytes.buffer
            : bytes.slice().buffer
        ) as ArrayBuffer;
      };
      const renameBody = async () => {
        const bytes = new Uint8Array(await read());
        const renaming = operation as OperationName; // one of RENAMES'
        const result =
          bytes.byteLength > OFF_THREAD_BYTES
            ? await renameOffThread(renaming, bytes, binding)
            : renameRequestBytes(renaming, bytes, binding, folders);
        for (const [internal, wire] of result.wireNames) wireNames.set(internal, wire);
        if (result.sentFolder !== undefined) sentFolder = result.sentFolder;
        return result.bytes;
      };
    }

    await next();
    const answer = await translate(c, operation, context, wireNames, sentFolder);
    if (answer !== c.res) {
      c.res = undefined; // replaced whole: none of the emulator's headers are merged back
      c.res = answer;
    }
  };
}

async function translate(
  c: Context,
  operation: OperationName | 'deleteEmail' | undefined,
  context: AnswerContext,
  wireNames: ReadonlyMap<string, string>,
  sentFolder: string | undefined,
): Promise<Response> {
  const res = c.res;
  const { binding, folders } = context;
  const isJson = (res.headers.get('content-type') ?? '').startsWith('application/json');
  if (res.status >= 400) {
    if (!isJson) return res;
    const rendered = renderError(
      JSON.parse(await res.text()),
      binding,
      wireNames,
      folders,
      sentFolder,
    );
    return rebuilt(res, JSON.stringify(rendered.body), rendered.status ?? res.status);
  }
  if (operation === undefined || operation === 'deleteEmail') return res;
  const bound = binding.operations[operation];
  if (!isJson) return rebuilt(res, res.body, bound.status);
  // A created email's answer carries its whole body (up to 5 MiB): the route encoded it in its
  // turn; it is read and decoded in the next, and parsed, renamed and encoded again in the one
  // after, where all of it held one turn of the event loop (issue 27 item 1).
  const creating = (CREATING_OPERATIONS as readonly string[]).includes(operation);
  if (creating) await nextTurn();
  const text = await res.text();
  if (creating && text.length > OFF_THREAD_BYTES) await nextTurn();
  const body: unknown = JSON.parse(text);
  const out = renderSuccess(operation, body, context);
  const answer = rebuilt(res, JSON.stringify(out ?? body), bound.status);
  const header = idHeader(bound.emailId);
  const location = res.headers.get('location');
  if (header !== undefined && location !== null) answer.headers.set(header, location);
  return answer;
}

function rebuilt(
  res: Response,
  body: ConstructorParameters<typeof Response>[0],
  status: number,
): Response {
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(body, { status, headers });
}
