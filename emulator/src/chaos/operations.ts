import type { OpenApiDocument } from '../spec.ts';

/** One operation of spec/openapi.yaml's `paths`: what an HTTP chaos rule can name. */
export interface Operation {
  operationId: string;
  /** Upper case, as in a request line. */
  method: string;
  /** The spec's path template, relative to `{base_url}` (`/emails/{emailId}`). */
  path: string;
  pattern: RegExp;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every operation of the contract's `paths` (not its `webhooks`), in the document's order. */
export function operationsOf(spec: OpenApiDocument): Operation[] {
  const paths = (spec.paths ?? {}) as Record<string, Record<string, { operationId?: string }>>;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      operations.push({
        operationId: operation.operationId ?? `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pattern: templatePattern(path),
      });
    }
  }
  return operations;
}

/** The operation a request is for (HEAD is GET's), or undefined for a path the spec lacks. */
export function operationFor(
  operations: readonly Operation[],
  method: string,
  path: string,
): Operation | undefined {
  const asked = method === 'HEAD' ? 'GET' : method;
  // A literal segment wins over a template (`/emails/send` is not `/emails/{emailId}`).
  let found: Operation | undefined;
  for (const operation of operations) {
    if (operation.method !== asked || !operation.pattern.test(path)) continue;
    if (found === undefined || literalLength(operation.path) > literalLength(found.path))
      found = operation;
  }
  return found;
}

function literalLength(template: string): number {
  return template.replace(/\{[^}]+\}/g, '').length;
}

/** `{name}` is one non-empty path segment, as the routers match it. */
function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}
