/**
 * Answers in a deployment's names and statuses: every JSON answer of /openapi/v1 (§4 "Successful
 * JSON operations return their result directly"), each operation's success status and, for send,
 * reply and forward, the answer's shape (§4.3 "Success response body shape: not shown"), and
 * every error's status and code (§7 "The list of code values: not shown. The HTTP status for each
 * error condition: not shown"). The error body keeps the document's `{code, message, field?}`.
 */
import type { Binding, OperationName } from './binding.ts';
import { folderMap, type FolderMap } from './folders.ts';
import { emailLayout, renderEmail, renderMailboxList, type RecordLayout } from './records.ts';

type Json = Record<string, unknown>;

/** The operation a request is, by method and path below /openapi/v1 (§4's table). */
export function operationOf(
  method: string,
  path: string,
): OperationName | 'deleteEmail' | undefined {
  if (path === '/mailboxes') return method === 'GET' ? 'listMailboxes' : undefined;
  if (path === '/emails') return method === 'GET' ? 'listEmails' : undefined;
  if (path === '/emails/send') return method === 'POST' ? 'sendEmail' : undefined;
  if (path === '/attachments') return method === 'POST' ? 'uploadAttachment' : undefined;
  if (/^\/attachments\/[^/]+$/.test(path))
    return method === 'GET' ? 'downloadAttachment' : undefined;
  if (/^\/emails\/[^/]+\/reply$/.test(path)) return method === 'POST' ? 'replyToEmail' : undefined;
  if (/^\/emails\/[^/]+\/forward$/.test(path))
    return method === 'POST' ? 'forwardEmail' : undefined;
  if (/^\/emails\/[^/]+$/.test(path)) {
    if (method === 'GET') return 'getEmail';
    if (method === 'PATCH') return 'updateEmail';
    if (method === 'DELETE') return 'deleteEmail';
  }
  return undefined;
}

export interface AnswerContext {
  binding: Binding;
  layout: RecordLayout;
  folders: FolderMap;
}

export function answerContext(binding: Binding): AnswerContext {
  return { binding, layout: emailLayout(binding), folders: folderMap(binding.folders) };
}

/** A success body in the binding's names; undefined when it is not JSON the dialect renames. */
export function renderSuccess(
  operation: OperationName,
  body: unknown,
  context: AnswerContext,
): unknown {
  const { binding, layout, folders } = context;
  switch (operation) {
    case 'listMailboxes':
      return renderMailboxList(body, binding.mailboxes);
    case 'listEmails': {
      const page = body as { emails?: unknown[]; nextCursor?: unknown };
      return {
        [binding.list.array]: (page.emails ?? []).map((e) =>
          renderEmail(e as Json, layout, folders),
        ),
        nextCursor: page.nextCursor ?? null,
      };
    }
    case 'getEmail':
    case 'updateEmail':
      return renderEmail(body as Json, layout, folders);
    case 'sendEmail':
    case 'replyToEmail':
    case 'forwardEmail': {
      const bound = binding.operations[operation];
      const id = (body as Json).id;
      if (bound.answer === 'reference') return referenceAnswer(bound.emailId, id);
      const record = renderEmail(body as Json, layout, folders);
      const pointer = bodyPointer(bound.emailId);
      if (pointer !== undefined && pointer.length > 0) setPointer(record, pointer, id, false);
      return record;
    }
    default:
      return undefined;
  }
}

/** `body:/a/b` → ['a', 'b']; a header location → undefined. */
export function bodyPointer(emailId: string | undefined): string[] | undefined {
  if (emailId === undefined || !emailId.startsWith('body:')) return undefined;
  const pointer = emailId.slice('body:'.length);
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The header a created email's id is given in, if the binding says so. */
export function idHeader(emailId: string | undefined): string | undefined {
  return emailId?.startsWith('header:') ? emailId.slice('header:'.length) : undefined;
}

/** `answer: reference`: only the id, at its pointer, and `status: "queued"`. */
export function referenceAnswer(emailId: string | undefined, id: unknown): unknown {
  const pointer = bodyPointer(emailId);
  if (pointer !== undefined && pointer.length === 0) return id;
  const answer: Json = {};
  if (pointer !== undefined) setPointer(answer, pointer, id, true);
  if (!Object.hasOwn(answer, 'status')) answer.status = 'queued';
  return answer;
}

function setPointer(target: Json, pointer: string[], value: unknown, overwrite: boolean): void {
  let node = target;
  for (const part of pointer.slice(0, -1)) {
    const next = node[part];
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) node = next as Json;
    else {
      const made: Json = {};
      node[part] = made;
      node = made;
    }
  }
  const last = pointer[pointer.length - 1] as string;
  if (overwrite || !Object.hasOwn(node, last)) node[last] = value;
}

/** An error body `{code, message, field?}` in the binding's code and the client's field names. */
export function renderError(
  body: { code?: unknown; message?: unknown; field?: unknown },
  binding: Binding,
  wireNames: ReadonlyMap<string, string>,
  folders: FolderMap,
  sentFolder: string | undefined,
): { status?: number; body: Json } {
  const code = typeof body.code === 'string' ? body.code : '';
  const bound = binding.errors[code];
  let message = typeof body.message === 'string' ? body.message : '';
  let field = typeof body.field === 'string' ? body.field : undefined;
  if (code === 'invalid_folder') {
    const shown = sentFolder === undefined ? '' : ` "${sentFolder}"`;
    message = `Unknown folder${shown}; use one of ${folders.names.join(', ')}.`;
  }
  if (field !== undefined) {
    const wire = wireNames.get(field);
    if (wire !== undefined && wire !== field) {
      message = renameInMessage(message, field, wire);
      field = wire;
    }
  }
  const out: Json = { code: bound?.code ?? code, message };
  if (field !== undefined) out.field = field;
  return { status: bound?.status, body: out };
}

/** The field's name in a message, as the emulator's messages quote or begin with it. */
function renameInMessage(message: string, internal: string, wire: string): string {
  const quoted = `"${internal}"`;
  if (message.includes(quoted)) return message.replace(quoted, `"${wire}"`);
  if (message.startsWith(`${internal} `)) return `${wire}${message.slice(internal.length)}`;
  return message;
}
