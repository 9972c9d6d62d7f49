/**
 * Infers a deployment's binding from the OpenAPI document it publishes (§1: every deployment
 * serves `{origin}/openapi/openapi.json`). The document's own names anchor the search: the
 * GET /emails answer's array property, the PATCH body's properties (whose names then find the
 * same fields in the email record), each operation's declared responses and error codes. An
 * entry with several candidates is reported with them, never guessed; one the document does
 * not show keeps the default and says so.
 */
import { InferenceDraft, type Ambiguity } from './inference-draft.ts';
import { inferForward, inferSend, inferUpdate } from './infer-bodies.ts';
import { inferFolders, inferListArray, inferMailboxes } from './infer-lists.ts';
import { inferRecord } from './infer-record.ts';
import { inferErrors, inferOperations } from './infer-statuses.ts';
import type { Binding } from './binding.ts';
import { OpenApiWalk, isObject } from './openapi-walk.ts';

export interface Inference {
  /** A complete binding document: inferred entries, the rest the default's. */
  binding: Binding;
  /** Each entry's source: a JSON pointer into the document (`#/paths/...`), or `default`. */
  sources: Record<string, string>;
  ambiguous: Ambiguity[];
}

export function inferBinding(document: unknown): Inference {
  if (!isObject(document) || !isObject(document.paths))
    throw new Error('not an OpenAPI document: it has no `paths` object');
  const draft = new InferenceDraft(new OpenApiWalk(document));
  draft.binding.name = `inferred from ${String((draft.walk.document.info as { title?: unknown } | undefined)?.title ?? 'an OpenAPI document')}`;
  // In this order: the PATCH body's names anchor the record's, the record's the answers'.
  inferUpdate(draft);
  const listItems = inferListArray(draft);
  inferRecord(draft, listItems);
  inferMailboxes(draft);
  inferSend(draft);
  inferForward(draft);
  inferOperations(draft);
  inferErrors(draft);
  inferFolders(draft);
  for (const section of Object.keys(draft.binding))
    if (isObject((draft.binding as unknown as Record<string, unknown>)[section]))
      for (const key of Object.keys(
        (draft.binding as unknown as Record<string, Record<string, unknown>>)[section]!,
      ))
        draft.sources[`/${section}/${key}`] ??= 'default';
  return { binding: draft.binding, sources: draft.sources, ambiguous: draft.ambiguous };
}
