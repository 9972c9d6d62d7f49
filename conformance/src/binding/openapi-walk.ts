/**
 * Reading a deployment's published OpenAPI document for inference (infer.ts): nodes with the
 * JSON pointer they sit at, `$ref`s followed, operations found by the document's path.
 */

export interface Located {
  node: unknown;
  /** A JSON pointer into the document: `#/components/schemas/Email/properties/from`. */
  pointer: string;
}

type Json = Record<string, unknown>;

function escape(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function unescape(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class OpenApiWalk {
  constructor(readonly document: Json) {}

  /** `at` with its local `$ref`s followed (at most 20, so a cycle ends). */
  deref(at: Located): Located {
    let current = at;
    for (let hops = 0; hops < 20; hops++) {
      const ref = isObject(current.node) ? current.node.$ref : undefined;
      if (typeof ref !== 'string' || !ref.startsWith('#')) return current;
      current = { node: this.resolve(ref), pointer: ref };
    }
    return current;
  }

  resolve(pointer: string): unknown {
    let node: unknown = this.document;
    for (const token of pointer
      .replace(/^#\/?/, '')
      .split('/')
      .filter((t) => t !== '')) {
      if (!isObject(node) && !Array.isArray(node)) return undefined;
      node = (node as Json)[unescape(token)];
    }
    return node;
  }

  child(at: Located, ...keys: string[]): Located {
    let current = this.deref(at);
    for (const key of keys) {
      const node = isObject(current.node) ? current.node[key] : undefined;
      current = this.deref({ node, pointer: `${current.pointer}/${escape(key)}` });
    }
    return current;
  }

  /**
   * The operation of `method` on the document's path for `path` (`/emails/{emailId}`): the
   * document may name path parameters otherwise or keep `/openapi/v1` in its paths.
   */
  operation(method: string, path: string): Located | undefined {
    const paths = this.document.paths;
    if (!isObject(paths)) return undefined;
    const shape = (p: string) =>
      p.replace(/\{[^}]*\}/g, '{}').replace(/^.*\/openapi\/v1(?=\/)/, '');
    for (const [key, item] of Object.entries(paths)) {
      if (shape(key) !== shape(path) || !isObject(item) || !isObject(item[method])) continue;
      return this.deref({ node: item[method], pointer: `#/paths/${escape(key)}/${method}` });
    }
    return undefined;
  }

  /** The status keys an operation declares, with each response. */
  responses(operation: Located): [status: string, response: Located][] {
    const responses = this.child(operation, 'responses');
    if (!isObject(responses.node)) return [];
    return Object.keys(responses.node).map((status) => [status, this.child(responses, status)]);
  }

  /** The JSON schema of a response or request body (`application/json`, or `*+json`). */
  jsonSchema(holder: Located): Located | undefined {
    const content = this.child(holder, 'content');
    if (!isObject(content.node)) return undefined;
    const type = Object.keys(content.node).find((t) => /^application\/([\w.-]+\+)?json\b/.test(t));
    if (type === undefined) return undefined;
    const schema = this.child(content, type, 'schema');
    return schema.node === undefined ? undefined : schema;
  }

  /** The lowest 2xx status an operation declares, and its response. */
  success(operation: Located): [number, Located] | undefined {
    const found = this.responses(operation)
      .filter(([status]) => /^2\d\d$/.test(status))
      .sort(([a], [b]) => Number(a) - Number(b))[0];
    return found === undefined ? undefined : [Number(found[0]), found[1]];
  }

  /**
   * The properties of an object schema, `allOf` parts merged (a detail schema is often the
   * summary's plus more), each located where it is written.
   */
  properties(schema: Located): Map<string, Located> {
    const found = new Map<string, Located>();
    const visit = (at: Located, depth: number) => {
      const s = this.deref(at);
      if (!isObject(s.node) || depth > 10) return;
      const props = this.child(s, 'properties');
      if (isObject(props.node))
        for (const name of Object.keys(props.node))
          if (!found.has(name)) found.set(name, this.child(props, name));
      for (const combiner of ['allOf', 'anyOf', 'oneOf']) {
        const parts = s.node[combiner];
        if (Array.isArray(parts))
          parts.forEach((_, i) =>
            visit({ node: parts[i], pointer: `${s.pointer}/${combiner}/${i}` }, depth + 1),
          );
      }
    };
    visit(schema, 0);
    return found;
  }

  /** The types a schema allows (`type` as a string or a list; `null` left out). */
  types(schema: Located): string[] {
    const s = this.deref(schema).node;
    if (!isObject(s)) return [];
    const type = s.type;
    const list = Array.isArray(type) ? type : typeof type === 'string' ? [type] : [];
    if (list.length === 0 && isObject(s.properties)) list.push('object');
    if (list.length === 0 && s.items !== undefined) list.push('array');
    for (const combiner of ['anyOf', 'oneOf'] as const) {
      const parts = s[combiner];
      if (Array.isArray(parts))
        parts.forEach((_, i) =>
          list.push(
            ...this.types({ node: parts[i], pointer: `${schema.pointer}/${combiner}/${i}` }),
          ),
        );
    }
    return [...new Set(list.filter((t) => t !== 'null') as string[])];
  }

  /** The item schema of an array schema (or of the array member of a nullable `anyOf`). */
  items(schema: Located): Located | undefined {
    const s = this.deref(schema);
    if (!isObject(s.node)) return undefined;
    if (s.node.items !== undefined) return this.child(s, 'items');
    for (const combiner of ['anyOf', 'oneOf'] as const) {
      const parts = s.node[combiner];
      if (!Array.isArray(parts)) continue;
      for (let i = 0; i < parts.length; i++) {
        const found = this.items({ node: parts[i], pointer: `${s.pointer}/${combiner}/${i}` });
        if (found !== undefined) return found;
      }
    }
    return undefined;
  }
}
