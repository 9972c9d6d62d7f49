// mailtwin-error-schema: every 4xx/5xx/4XX/5XX/default response under `paths` has
// content.application/json.schema that is exactly { $ref: '#/components/schemas/Error' }.
//
// Runs on the UNRESOLVED document (rule option `resolved: false`) so the schema's $ref is visible.
// A response that is itself a $ref is followed here, but only to #/components/responses/...
// A component response used by several operations is reported once, at the component.
import { followLocalRefs, isObject, operations, pointer } from './_oas.js';

const ERROR_SCHEMA_REF = '#/components/schemas/Error';
// Annotation keywords that may sit next to the $ref without changing what the schema accepts.
const ALLOWED_SIBLINGS = new Set([
  '$ref',
  'description',
  'title',
  'example',
  'examples',
  'deprecated',
  '$comment',
]);

function isErrorStatus(status) {
  return /^[45](\d\d|XX)$/.test(status) || status === 'default';
}

function schemaProblem(response) {
  if (!isObject(response.content)) return { problem: 'has no content', at: [] };
  const media = response.content['application/json'];
  if (!isObject(media)) return { problem: 'has no application/json content', at: ['content'] };
  const schema = media.schema;
  const at = ['content', 'application/json'];
  if (schema === undefined) return { problem: 'has no application/json schema', at };
  if (!isObject(schema) || schema.$ref !== ERROR_SCHEMA_REF) {
    const actual =
      isObject(schema) && typeof schema.$ref === 'string'
        ? `$ref "${schema.$ref}"`
        : 'an inline schema';
    return { problem: `has ${actual} as its application/json schema`, at: [...at, 'schema'] };
  }
  const extra = Object.keys(schema).filter((key) => !ALLOWED_SIBLINGS.has(key));
  if (extra.length > 0) {
    return {
      problem: `has extra keywords (${extra.join(', ')}) next to its $ref to ${ERROR_SCHEMA_REF}`,
      at: [...at, 'schema'],
    };
  }
  return undefined;
}

export default function errorResponseSchema(document) {
  const results = [];
  const reportedComponents = new Set();
  for (const op of operations(document, 'paths', { followPathItemRefs: true })) {
    const responses = op.operation.responses;
    if (!isObject(responses)) continue;
    for (const [status, response] of Object.entries(responses)) {
      if (!isErrorStatus(status)) continue;
      const responsePath = [...op.path, 'responses', status];
      const where = `${op.label} response ${status}`;
      const followed = followLocalRefs(document, response, responsePath, [
        'components',
        'responses',
      ]);
      if (followed.error !== undefined) {
        results.push({ message: `${where}: ${followed.error}.`, path: responsePath });
        continue;
      }
      if (!isObject(followed.value)) continue;
      const found = schemaProblem(followed.value);
      if (found === undefined) continue;
      const must = `it must have content.application/json.schema = { $ref: '${ERROR_SCHEMA_REF}' }`;
      if (followed.refs.length > 0) {
        const key = pointer(followed.path);
        if (reportedComponents.has(key)) continue;
        reportedComponents.add(key);
        results.push({
          message: `Error response ${key} (used by ${where}) ${found.problem}; ${must}.`,
          path: [...followed.path, ...found.at],
        });
      } else {
        results.push({
          message: `${where} ${found.problem}; ${must}.`,
          path: [...responsePath, ...found.at],
        });
      }
    }
  }
  return results;
}
