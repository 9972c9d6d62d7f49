// Shared helpers for the mailtwin Spectral functions.
//
// This file is not registered as a Spectral function itself: the function files import it with a
// relative ESM import, and Spectral's ruleset bundler (rollup) inlines it into the bundled ruleset.

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON-pointer fragment ("#/components/responses/Foo") -> path segments, or undefined if not local. */
export function refToPath(ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
  const pointer = ref.slice(1);
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // keep the raw segment
      }
      return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

export function getAtPath(root, path) {
  let node = root;
  for (const segment of path) {
    if (node === null || typeof node !== 'object' || !(segment in node)) return undefined;
    node = node[segment];
  }
  return node;
}

/**
 * Follows a chain of local $refs (only those whose target path starts with `prefix`, e.g.
 * ['components', 'responses']). Returns { value, path, refs } or { error } when a ref is not local,
 * points elsewhere than `prefix`, is dangling, or loops.
 */
export function followLocalRefs(root, value, path, prefix) {
  const refs = [];
  let current = value;
  let currentPath = path;
  while (isObject(current) && typeof current.$ref === 'string') {
    const ref = current.$ref;
    const target = refToPath(ref);
    if (target === undefined || !prefix.every((segment, i) => target[i] === segment)) {
      return { error: `$ref "${ref}" does not point to #/${prefix.join('/')}/...`, refs };
    }
    if (refs.includes(ref)) {
      return { error: `$ref "${ref}" is circular`, refs };
    }
    refs.push(ref);
    const next = getAtPath(root, target);
    if (next === undefined) {
      return { error: `$ref "${ref}" does not resolve to anything`, refs };
    }
    current = next;
    currentPath = target;
  }
  return { value: current, path: currentPath, refs };
}

/**
 * Yields every operation under `root[section]` (section is 'paths' or 'webhooks').
 * With followPathItemRefs, a path item that is a local $ref (3.1: #/components/pathItems/...) is
 * followed, and the yielded path points into the referenced path item.
 */
export function* operations(root, section, { followPathItemRefs = false } = {}) {
  const container = isObject(root) ? root[section] : undefined;
  if (!isObject(container)) return;
  for (const [key, rawItem] of Object.entries(container)) {
    let pathItem = rawItem;
    let itemPath = [section, key];
    if (followPathItemRefs && isObject(rawItem) && typeof rawItem.$ref === 'string') {
      const followed = followLocalRefs(root, rawItem, itemPath, ['components', 'pathItems']);
      if (followed.error !== undefined) continue;
      pathItem = followed.value;
      itemPath = followed.path;
    }
    if (!isObject(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      yield {
        section,
        key,
        method,
        pathItem,
        operation,
        path: [...itemPath, method],
        label: operationLabel(section, key, method),
      };
    }
  }
}

export function operationLabel(section, key, method) {
  const verb = method.toUpperCase();
  return section === 'webhooks' ? `webhook "${key}" ${verb}` : `${verb} ${key}`;
}

/** Human-readable location of a path inside the document, e.g. "#/components/schemas/Error". */
export function pointer(path) {
  return `#/${path.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}
