/**
 * Which methods each path of the emulator answers, read from the contracts themselves, so a
 * wrong method on a known path is answered 405 `method_not_allowed` with an `Allow` header
 * (D-12, RFC 9110 §15.5.6) instead of looking like an unknown path.
 */

/** A path template of the spec (`/emails/{emailId}`) under its mount point, with its methods. */
interface PathMethods {
  pattern: RegExp;
  methods: readonly string[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The methods an OpenAPI document's `paths` declare, each template matched under `prefix`. */
export function pathMethodsOf(prefix: string, document: { paths?: unknown }): PathMethods[] {
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(paths).map(([template, item]) => ({
    pattern: templatePattern(prefix + template),
    methods: Object.keys(item)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => method.toUpperCase()),
  }));
}

/** Routes outside the two contracts: the docs, public content, unsubscribe links, the sink. */
export function routeMethods(routes: Record<string, readonly string[]>): PathMethods[] {
  return Object.entries(routes).map(([template, methods]) => ({
    pattern: templatePattern(template),
    methods,
  }));
}

/** `{name}` is one non-empty path segment, as the routers match it. */
function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}

/**
 * The `Allow` value for a path: every method some template matching it declares, HEAD with GET
 * (Hono answers HEAD from the GET route), in a fixed order; empty when no template matches.
 */
export function allowedMethods(table: readonly PathMethods[], pathname: string): string[] {
  const allowed = new Set<string>();
  for (const entry of table) {
    if (!entry.pattern.test(pathname)) continue;
    for (const method of entry.methods) allowed.add(method);
  }
  if (allowed.has('GET')) allowed.add('HEAD');
  return HTTP_METHODS.map((m) => m.toUpperCase()).filter((m) => allowed.has(m));
}
