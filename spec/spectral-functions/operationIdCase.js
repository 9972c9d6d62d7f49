// mailtwin-operation-id: every operation under `paths` has a lowerCamelCase operationId.
import { operations } from './_oas.js';

const LOWER_CAMEL_CASE = /^[a-z][a-zA-Z0-9]*$/;

export default function operationIdCase(document) {
  const results = [];
  for (const op of operations(document, 'paths')) {
    const { operationId } = op.operation;
    if (typeof operationId !== 'string' || operationId === '') {
      results.push({
        message: `${op.label} has no operationId; every operation needs a lowerCamelCase operationId (e.g. "listMessages").`,
        path: op.path,
      });
    } else if (!LOWER_CAMEL_CASE.test(operationId)) {
      results.push({
        message: `${op.label} has operationId "${operationId}", which is not lowerCamelCase (must match ${LOWER_CAMEL_CASE.source}).`,
        path: [...op.path, 'operationId'],
      });
    }
  }
  return results;
}
