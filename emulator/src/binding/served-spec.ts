/**
 * The document a deployment speaking a binding serves at `{origin}/openapi/openapi.json` (§1
 * "OpenAPI 3.1 schema"), derived from spec/openapi.yaml: the records, request bodies, success
 * statuses and answers, errors and folder names of the binding, with every example rewritten
 * the same way, so the docs page and a client generated from it speak the dialect.
 */
import type { OpenApiDocument } from '../spec.ts';
import { answerContext } from './answers.ts';
import type { Binding } from './binding.ts';
import { folderMap } from './folders.ts';
import { emailLayout, renderEmail, webhookDataLayout } from './records.ts';
import { rewriteOperation } from './served-operations.ts';
import { rewriteSchemas } from './served-schemas.ts';

type Json = Record<string, unknown>;

/** The document served for `binding`: a rewritten copy of `spec`, which is left untouched. */
export function servedSpec(spec: OpenApiDocument, binding: Binding): OpenApiDocument {
  const doc = structuredClone(spec) as Json;
  const components = doc.components as Json;
  const schemas = components.schemas as Record<string, Json>;
  const context = answerContext(binding);
  const folders = folderMap(binding.folders);

  doc['x-binding'] = { name: binding.name ?? 'unnamed binding', format: 1 };
  doc.info = {
    ...(doc.info as Json),
    description: `${String((doc.info as Json).description ?? '')}\nThis instance speaks the binding "${binding.name ?? 'unnamed'}": the names, statuses and codes below are that deployment's, mapped at the emulator's edge.\n`,
  };

  rewriteSchemas(schemas, binding);

  for (const item of Object.values(doc.paths as Json)) {
    for (const operation of Object.values(item as Json)) {
      if (typeof operation !== 'object' || operation === null) continue;
      const id = (operation as Json).operationId;
      if (typeof id !== 'string') continue;
      rewriteOperation(doc, operation as Json, id, binding, context);
    }
  }

  const layout = emailLayout(binding);
  const examples = (components.examples ?? {}) as Record<string, Json>;
  for (const example of Object.values(examples))
    example.value = renderEmail(example.value as Json, layout, folders);
  const received = ((doc.webhooks as Json)['email.received'] as Json).post as Json;
  const receivedBody = ((received.requestBody as Json).content as Json)['application/json'] as Json;
  const receivedExample = receivedBody.example as Json | undefined;
  if (receivedExample !== undefined)
    receivedExample.data = renderEmail(
      receivedExample.data as Json,
      webhookDataLayout(binding),
      folders,
    );

  rewriteLimits(doc['x-limits'] as Json | undefined, binding);
  return doc as OpenApiDocument;
}

/** x-limits: each limit's code as the binding answers it, the preheader's field as named. */
function rewriteLimits(limits: Json | undefined, binding: Binding): void {
  if (limits === undefined) return;
  for (const limit of Object.values(limits)) {
    if (typeof limit !== 'object' || limit === null) continue;
    const entry = limit as Json;
    const code = entry.errorCode;
    if (typeof code === 'string' && binding.errors[code] !== undefined)
      entry.errorCode = (binding.errors[code] as { code: string }).code;
    if (Array.isArray(entry.fields) && entry.fields.includes('preheader')) {
      entry.fields = entry.fields.flatMap((f: unknown) =>
        f !== 'preheader' ? [f] : binding.send.preheader === null ? [] : [binding.send.preheader],
      );
    }
  }
}
