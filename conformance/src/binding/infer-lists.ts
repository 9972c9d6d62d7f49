/**
 * The lists of the document: the array of GET /emails and its items, GET /mailboxes and its
 * record, and the enum of folder names.
 */
import type { InferenceDraft } from './inference-draft.ts';
import { ADDRESS } from './infer-record.ts';
import { isObject, type Located } from './openapi-walk.ts';

/** The array of the GET /emails answer (D-6), and the schema of its items. */
export function inferListArray(draft: InferenceDraft): Located | undefined {
  const schema = draft.successSchema('get', '/emails');
  if (schema === undefined) return undefined;
  const arrays = new Map(
    [...draft.walk.properties(schema)].filter(
      ([name, at]) => name !== 'nextCursor' && draft.walk.types(at).includes('array'),
    ),
  );
  const found = draft.pick('/list/array', arrays, draft.binding.list.array, /./);
  if (found === undefined) return undefined;
  draft.set('/list/array', found[0], found[1].pointer);
  return draft.walk.items(found[1]);
}

/** The GET /mailboxes answer: a bare array or one property (D-2), and the mailbox record (D-1). */
export function inferMailboxes(draft: InferenceDraft): void {
  const schema = draft.successSchema('get', '/mailboxes');
  if (schema === undefined) return;
  let items: Located | undefined;
  if (draft.walk.types(schema).includes('array')) {
    draft.set('/mailboxes/array', null, schema.pointer);
    items = draft.walk.items(schema);
  } else {
    const arrays = new Map(
      [...draft.walk.properties(schema)].filter(([, at]) => draft.walk.types(at).includes('array')),
    );
    const found = draft.pick('/mailboxes/array', arrays, undefined, /./);
    if (found === undefined) return;
    draft.set('/mailboxes/array', found[0], found[1].pointer);
    items = draft.walk.items(found[1]);
  }
  if (items === undefined) return;
  const properties = draft.walk.properties(items);
  const address = draft.pick('/mailboxes/address', properties, 'address', ADDRESS);
  if (address !== undefined) draft.set('/mailboxes/address', address[0], address[1].pointer);
  for (const [key, pattern] of [
    ['domain', /^(domain|domainName)$/i],
    ['displayName', /^(displayName|display_name|name)$/i],
  ] as const) {
    const found = draft.pick(`/mailboxes/${key}`, properties, key, pattern);
    draft.set(
      `/mailboxes/${key}`,
      found?.[0] ?? null,
      found?.[1].pointer ?? `${items.pointer} (no such field)`,
    );
  }
}

/** The folder names (D-5): the PATCH body's folder or the list's `folder` parameter, as an enum. */
export function inferFolders(draft: InferenceDraft): void {
  const candidates: Located[] = [];
  const update = draft.operation('patch', '/emails/{emailId}');
  const body = update && draft.walk.jsonSchema(draft.walk.child(update, 'requestBody'));
  const folderField = body && draft.walk.properties(body).get(draft.binding.update.folder);
  if (folderField !== undefined) candidates.push(folderField);
  const listFolder = draft.operation('get', '/emails');
  const parameters = listFolder && draft.walk.child(listFolder, 'parameters');
  if (parameters !== undefined && Array.isArray(parameters.node))
    parameters.node.forEach((_, i) => {
      const parameter = draft.walk.child(parameters, String(i));
      if (isObject(parameter.node) && parameter.node.name === 'folder')
        candidates.push(draft.walk.child(parameter, 'schema'));
    });
  for (const candidate of candidates) {
    const enumNode = enumOf(draft, candidate);
    if (enumNode === undefined) continue;
    const names = enumNode.node as string[];
    draft.set('/folders/names', [...names], enumNode.pointer);
    const sent = names.filter((n) => /sent/i.test(n));
    if (sent.length === 1) draft.set('/folders/sent', sent[0], enumNode.pointer);
    else if (!names.includes(draft.binding.folders.sent))
      draft.ambiguous.push({ entry: '/folders/sent', candidates: sent.length > 0 ? sent : names });
    if (names.includes('inbox')) draft.set('/folders/received', 'inbox', enumNode.pointer);
    return;
  }
}

function enumOf(draft: InferenceDraft, at: Located): Located | undefined {
  const s = draft.walk.deref(at);
  if (!isObject(s.node)) return undefined;
  if (Array.isArray(s.node.enum) && s.node.enum.every((v) => typeof v === 'string'))
    return { node: s.node.enum, pointer: `${s.pointer}/enum` };
  for (const combiner of ['anyOf', 'oneOf', 'allOf'] as const) {
    const parts = s.node[combiner];
    if (!Array.isArray(parts)) continue;
    for (let i = 0; i < parts.length; i++) {
      const found = enumOf(draft, { node: parts[i], pointer: `${s.pointer}/${combiner}/${i}` });
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
