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
import type { Binding, OperationName } from './binding.ts';
import { folderMap, type FolderMap } from './folders.ts';
import { renderEmail, webhookDataLayout, type RecordLayout } from './records.ts';
import { forwardRequest, listQuery, sendRequest, updateRequest, type Renamed } from './requests.ts';

const BASE = '/openapi/v1';

export interface Dialect {
  binding: Binding;
  /** The /openapi/v1 middleware. */
  middleware: MiddlewareHandler;
  /** §6.2: the `data` of email.received in the binding's names, before it is signed (§6.3). */
  webhookData: (data: unknown) => unknown;
}

export function createDialect(binding: Binding): Dialect {
  const folders = folderMap(binding.folders);
  const context: AnswerContext = answerContext(binding);
  const dataLayout: RecordLayout = webhookDataLayout(binding);
  return {
    binding,
    middleware: dialectMiddleware(context),
    webhookData: (data) =>
      typeof data === 'object' && data !== null
        ? renderEmail(data as Record<string, unknown>, dataLayout, folders)
        : data,
  };
}

const RENAMES: Partial<
  Record<OperationName, (body: Record<string, unknown>, b: Binding, f: FolderMap) => Renamed>
> = {
  updateEmail: updateRequest,
  sendEmail: (body, b) => sendRequest(body, b),
  replyToEmail: (body, b) => sendRequest(body, b),
  forwardEmail: (body, b) => forwardRequest(body, b),
};

function dialectMiddleware(context: AnswerContext): MiddlewareHandler {
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
      const read = c.req.text.bind(c.req);
      // Read lazily, where the route reads it (as text, or as bytes: a large send's body goes
      // to a render thread as bytes), after authentication and the body limit; once.
      let renamedText: Promise<string> | undefined;
      c.req.text = () => (renamedText ??= renameBody());
      c.req.arrayBuffer = async () => {
        const bytes = new TextEncoder().encode(await c.req.text());
        return bytes.buffer.slice(
          bytes.byteOffset,
          bytes.byteOffset + bytes.byteLength,
        ) as ArrayBuffer;
      };
      const renameBody = async () => {
        const text = await read();
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          return text; // the route answers invalid_json
        }
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return text;
        const renamed = rename(value as Record<string, unknown>, binding, folders);
        renamed.wireNames.forEach((wire, internal) => wireNames.set(internal, wire));
        if (operation === 'updateEmail') {
          const folder = (value as Record<string, unknown>)[binding.update.folder];
          if (typeof folder === 'string') sentFolder = folder;
        }
        return JSON.stringify(renamed.body);
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
  const body: unknown = JSON.parse(await res.text());
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
