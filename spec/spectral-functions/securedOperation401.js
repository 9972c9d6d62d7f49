// mailtwin-401-response: every secured operation under `paths` declares a 401 response.
//
// An operation is secured when its effective security (its own `security`, or else the top-level
// `security`) contains at least one non-empty requirement object. `security: []` opts out, and a
// list made only of `{}` (anonymous access) is not secured either.
import { isObject, operations } from './_oas.js';

function schemeNames(requirements) {
  if (!Array.isArray(requirements)) return [];
  const names = new Set();
  for (const requirement of requirements) {
    if (isObject(requirement)) for (const name of Object.keys(requirement)) names.add(name);
  }
  return [...names];
}

export default function securedOperation401(document) {
  const results = [];
  if (!isObject(document)) return results;
  for (const op of operations(document, 'paths')) {
    const own = Array.isArray(op.operation.security);
    const schemes = schemeNames(own ? op.operation.security : document.security);
    if (schemes.length === 0) continue;
    const responses = op.operation.responses;
    if (isObject(responses) && Object.prototype.hasOwnProperty.call(responses, '401')) continue;
    const origin = own ? 'operation security' : 'top-level security';
    results.push({
      message: `${op.label} is secured (${schemes.join(', ')} via ${origin}) but declares no 401 response.`,
      path: isObject(responses) ? [...op.path, 'responses'] : op.path,
    });
  }
  return results;
}
