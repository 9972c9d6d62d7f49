/**
 * The request bodies' names the checks need: the PATCH body's fields, the send body's
 * preheader, the forward body's recipient.
 */
import type { InferenceDraft } from './inference-draft.ts';
import { ADDRESS, NAMES, innerPath } from './infer-record.ts';
import type { Located } from './openapi-walk.ts';

/** The PATCH /emails/{emailId} body's names of folder, read and starred (D-20). */
export function inferUpdate(draft: InferenceDraft): void {
  const properties = draft.requestProperties('patch', '/emails/{emailId}');
  if (properties.size === 0) return;
  const isBoolean = (at: Located) => draft.walk.types(at).includes('boolean');
  const isString = (at: Located) => draft.walk.types(at).includes('string');
  for (const [key, accept] of [
    ['folder', isString],
    ['read', isBoolean],
    ['starred', isBoolean],
  ] as const) {
    const found = draft.pick(`/update/${key}`, properties, key, NAMES[key], accept);
    if (found !== undefined) draft.set(`/update/${key}`, found[0], found[1].pointer);
  }
}

/** The send body's name of the preheader (D-8), or none. */
export function inferSend(draft: InferenceDraft): void {
  const properties = draft.requestProperties('post', '/emails/send');
  if (properties.size === 0) return;
  const found = draft.pick('/send/preheader', properties, 'preheader', NAMES.preheader);
  draft.set('/send/preheader', found?.[0] ?? null, found?.[1].pointer ?? 'no such field');
}

/** The forward body's recipient (D-23): a string, a list, or a list of address objects. */
export function inferForward(draft: InferenceDraft): void {
  const properties = draft.requestProperties('post', '/emails/{emailId}/forward');
  if (properties.size === 0) return;
  const found = draft.pick(
    '/forward/recipient',
    properties,
    'to',
    /^(to|toRecipients|to_recipients|recipients|recipient)$/i,
  );
  if (found === undefined) return;
  const [name, at] = found;
  if (draft.walk.types(at).includes('string'))
    return draft.set('/forward/recipient', name, at.pointer);
  const items = draft.walk.items(at);
  if (items === undefined) return;
  if (draft.walk.types(items).includes('string'))
    return draft.set('/forward/recipient', `${name}[]`, at.pointer);
  const rest = innerPath(draft, items, ADDRESS);
  if (rest !== undefined) draft.set('/forward/recipient', `${name}[].${rest[0]}`, rest[1]);
}
