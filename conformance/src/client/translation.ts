/**
 * Requests leave in the target's names and answers come back in the checks' names, through the
 * target's binding (binding/dialect.ts); under the default binding nothing changes.
 */
import type { Dialect } from '../binding/dialect.ts';
import type { RequestBody } from './exchange-types.ts';

/**
 * A body given as JSON text (generated inputs are), in the target's names like `json`; text
 * that is not a JSON object goes as it is.
 */
export function translatedBody(
  dialect: Dialect,
  operationId: string | undefined,
  body: RequestBody | undefined,
): RequestBody | undefined {
  if (dialect.isDefault || typeof body !== 'string') return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  const translated = dialect.requestJson(operationId, parsed);
  return translated === parsed ? body : JSON.stringify(translated);
}

/**
 * The answer in the checks' names (binding/dialect.ts). A send, reply or forward whose
 * binding answers only a reference to the email is followed by a GET of it, as a client of
 * that deployment would read the sent copy.
 */
export async function canonicalAnswer(
  dialect: Dialect,
  operationId: string | undefined,
  response: Response,
  rawText: string,
  readCreated: (id: string) => Promise<string | undefined>,
): Promise<{ status: number; text: string; changed: boolean }> {
  const unchanged = { status: response.status, text: rawText, changed: false };
  if (dialect.isDefault || operationId === undefined) return unchanged;
  let json: unknown;
  const isJson = /^application\/([\w.-]+\+)?json\b/i.test(
    response.headers.get('content-type') ?? '',
  );
  if (isJson) {
    try {
      json = JSON.parse(rawText);
    } catch {
      return unchanged;
    }
  }
  const answer = dialect.canonicalAnswer(operationId, response.status, json);
  const created = dialect.created(operationId);
  if (created?.answer === 'reference' && response.status === created.status) {
    const id = referencedId(created.emailId, json, response.headers);
    const detail = id === undefined ? undefined : await readCreated(id);
    if (detail !== undefined) return { status: answer.status, text: detail, changed: true };
  }
  if (answer.json === undefined)
    return { ...unchanged, status: answer.status, changed: answer.status !== response.status };
  const text = JSON.stringify(answer.json);
  return { status: answer.status, text, changed: true };
}

/** The created email's id where the binding says it is: `body:<JSON pointer>` or `header:<name>`. */
function referencedId(where: string, json: unknown, headers: Headers): string | undefined {
  if (where.startsWith('header:')) {
    const value = headers.get(where.slice('header:'.length));
    return value
      ?.split('/')
      .filter((s) => s !== '')
      .pop()
      ?.split('?')[0];
  }
  let node: unknown = json;
  for (const token of where.slice('body:'.length).split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[token.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return typeof node === 'string' ? node : undefined;
}
