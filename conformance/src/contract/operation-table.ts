import { deref, type Json } from './documented-contract.ts';

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'] as const;

/** The operation of the contract a request names, by method and path template. */
export interface OperationMatch {
  operationId: string;
  method: string;
  pathTemplate: string;
}

/**
 * The operations of a contract (its `paths`), found from a method and a concrete path the way a
 * router finds them: a literal segment wins over a parameter (`/emails/send` before
 * `/emails/{emailId}`).
 */
export class OperationTable {
  private readonly routes: { method: string; template: string; regex: RegExp; operation: Json }[] =
    [];

  constructor(private readonly spec: Json) {
    const paths = (spec.paths ?? {}) as Record<string, Json>;
    for (const [template, item] of Object.entries(paths)) {
      for (const method of METHODS) {
        const operation = item[method] as Json | undefined;
        if (operation === undefined) continue;
        this.routes.push({ method, template, regex: templateToRegex(template), operation });
      }
    }
  }

  /** Every error code the contract lists for an operation (`x-error-codes` of its responses). */
  errorCodesOf(operationId: string): ReadonlySet<string> {
    const codes = new Set<string>();
    const route = this.routes.find((r) => r.operation.operationId === operationId);
    const responses = (route?.operation.responses ?? {}) as Record<string, Json>;
    for (const response of Object.values(responses)) {
      const resolved = deref(this.spec, response) as Json | undefined;
      const listed = resolved?.['x-error-codes'];
      if (Array.isArray(listed)) for (const code of listed) codes.add(String(code));
    }
    return codes;
  }

  /** The operations of the contract as `METHOD /path` strings. */
  keys(): string[] {
    return this.routes.map((r) => `${r.method.toUpperCase()} ${r.template}`).sort();
  }

  /** Finds the documented operation for a method and a concrete path, if any. */
  match(method: string, path: string): OperationMatch | undefined {
    const m = method.toLowerCase();
    // Literal segments win over parameters (`/emails/send` before `/emails/{emailId}`).
    const candidates = this.routes
      .filter((r) => r.method === m && r.regex.test(path))
      .sort((a, b) => literalWeight(b.template) - literalWeight(a.template));
    const route = candidates[0];
    if (route === undefined) return undefined;
    return {
      operationId: String(route.operation.operationId),
      method: m,
      pathTemplate: route.template,
    };
  }
}

/** The JSON pointer of an operation's `responses` in its contract. */
export function responsesPointer(match: OperationMatch): string {
  return `/paths/${escapePointer(match.pathTemplate)}/${match.method}/responses`;
}

/** One segment of a JSON pointer (RFC 6901: `~` as `~0`, `/` as `~1`). */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function templateToRegex(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

function literalWeight(template: string): number {
  return template.split('/').filter((s) => s !== '' && !s.startsWith('{')).length;
}
