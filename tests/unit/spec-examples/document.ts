// The examples of spec/openapi.yaml, read per operation: what a request example is made of and
// which response example it pairs with. Used by tests/unit/spec-examples.test.ts.
import type { OpenApiDocument } from '../../../emulator/src/spec.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Node = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** One documented example: `name` is its key in an `examples` map, undefined for `example`. */
export interface Example {
  name: string | undefined;
  value: Json;
  /** Where it is written, as a JSON pointer into the document (after following $refs). */
  pointer: string;
}

export interface Parameter {
  name: string;
  in: string;
  /** The parameter's `example`, or its `examples` map. */
  examples: Example[];
}

export interface Response {
  status: string;
  /** `Unauthorized` when the response is a `$ref` to #/components/responses/Unauthorized. */
  component: string | undefined;
  mediaType: string | undefined;
  examples: Example[];
  /** Response headers that carry an example. */
  headers: { name: string; example: Json; pointer: string }[];
}

export interface Operation {
  /** `paths` or `webhooks`. */
  section: 'paths' | 'webhooks';
  operationId: string;
  method: string;
  /** The path template, or the webhook's name. */
  path: string;
  parameters: Parameter[];
  requestMediaType: string | undefined;
  requestExamples: Example[];
  responses: Response[];
}

/** A request made of documented examples, before real ids are swapped in. */
export interface ExampleRequest {
  /** The response example's name (the pairing key), or undefined for an unnamed one. */
  name: string | undefined;
  pathParams: Record<string, Json>;
  query: Record<string, Json>;
  body: Json | undefined;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Follows local `$ref`s; returns the node and the pointer it was found at. */
export function resolve(doc: OpenApiDocument, node: unknown, pointer: string): [Node, string] {
  let current = node;
  let at = pointer;
  for (let hops = 0; isNode(current) && typeof current.$ref === 'string'; hops += 1) {
    if (hops > 10 || !current.$ref.startsWith('#/'))
      throw new Error(`cannot follow ${current.$ref}`);
    at = current.$ref.slice(1);
    current = at
      .slice(1)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((n, key) => (isNode(n) ? n[key] : undefined), doc);
  }
  if (!isNode(current)) throw new Error(`${pointer} is not an object`);
  return [current, at];
}

/** The `example` and `examples` of a media type, parameter or header object. */
function examplesOf(doc: OpenApiDocument, node: Node, pointer: string): Example[] {
  const found: Example[] = [];
  if ('example' in node)
    found.push({ name: undefined, value: node.example as Json, pointer: `${pointer}/example` });
  if (isNode(node.examples)) {
    for (const [name, raw] of Object.entries(node.examples)) {
      const [example, at] = resolve(doc, raw, `${pointer}/examples/${escape(name)}`);
      found.push({ name, value: example.value as Json, pointer: `${at}/value` });
    }
  }
  return found;
}

function onlyMediaType(content: unknown): [string, Node] | undefined {
  if (!isNode(content)) return undefined;
  const entries = Object.entries(content);
  if (entries.length !== 1) throw new Error(`expected one media type, got ${entries.length}`);
  const [mediaType, media] = entries[0] as [string, unknown];
  return isNode(media) ? [mediaType, media] : undefined;
}

/** Every operation under `paths` and `webhooks`, with its examples. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const section of ['paths', 'webhooks'] as const) {
    const items = doc[section];
    if (!isNode(items)) continue;
    for (const [path, rawItem] of Object.entries(items)) {
      const [item, itemAt] = resolve(doc, rawItem, `/${section}/${escape(path)}`);
      for (const method of METHODS) {
        const op = item[method];
        if (!isNode(op)) continue;
        const opAt = `${itemAt}/${method}`;
        const parameters = [
          ...((item.parameters as unknown[] | undefined) ?? []).map(
            (p, i) => [p, `${itemAt}/parameters/${i}`] as const,
          ),
          ...((op.parameters as unknown[] | undefined) ?? []).map(
            (p, i) => [p, `${opAt}/parameters/${i}`] as const,
          ),
        ]
          .map(([raw, at]) => {
            const [parameter, pAt] = resolve(doc, raw, at);
            return {
              name: String(parameter.name),
              in: String(parameter.in),
              examples: examplesOf(doc, parameter, pAt),
            };
          })
          // An operation's own parameter overrides the path item's of the same name and place.
          .filter(
            (p, i, all) =>
              !all.slice(i + 1).some((later) => later.name === p.name && later.in === p.in),
          );
        let requestMediaType: string | undefined;
        let requestExamples: Example[] = [];
        if (op.requestBody !== undefined) {
          const [body, bodyAt] = resolve(doc, op.requestBody, `${opAt}/requestBody`);
          const media = onlyMediaType(body.content);
          if (media !== undefined) {
            requestMediaType = media[0];
            requestExamples = examplesOf(doc, media[1], `${bodyAt}/content/${escape(media[0])}`);
          }
        }
        const responses = Object.entries(isNode(op.responses) ? op.responses : {}).map(
          ([status, raw]): Response => {
            const ref = isNode(raw) && typeof raw.$ref === 'string' ? raw.$ref : undefined;
            const [response, at] = resolve(doc, raw, `${opAt}/responses/${escape(status)}`);
            const media = onlyMediaType(response.content);
            const headers = Object.entries(isNode(response.headers) ? response.headers : {})
              .map(
                ([name, header]) =>
                  [name, resolve(doc, header, `${at}/headers/${escape(name)}`)] as const,
              )
              .filter(([, [header]]) => 'example' in header)
              .map(([name, [header, hAt]]) => ({
                name,
                example: header.example as Json,
                pointer: `${hAt}/example`,
              }));
            return {
              status,
              component: ref?.startsWith('#/components/responses/')
                ? ref.split('/').pop()
                : undefined,
              mediaType: media?.[0],
              examples:
                media === undefined
                  ? []
                  : examplesOf(doc, media[1], `${at}/content/${escape(media[0])}`),
              headers,
            };
          },
        );
        operations.push({
          section,
          operationId: String(op.operationId),
          method: method.toUpperCase(),
          path,
          parameters,
          requestMediaType,
          requestExamples,
          responses,
        });
      }
    }
  }
  return operations;
}

/** The 2xx response of an operation (each has exactly one). */
export function successOf(op: Operation): Response {
  const found = op.responses.filter((r) => /^2/.test(r.status));
  if (found.length !== 1)
    throw new Error(`${op.operationId} has ${found.length} success responses`);
  return found[0] as Response;
}

/**
 * The pairing rule. A response example named N pairs with the request body example named N
 * and, for each parameter, its `examples[N]` or else its single `example`. An unnamed response
 * example pairs with the single unnamed body example (if any) and every parameter's `example`.
 * A success response without content pairs with the parameters' examples alone. Throws when a
 * name has no partner, in either direction, so an example cannot be left out of the pairing.
 */
export function pairedRequests(op: Operation): ExampleRequest[] {
  const success = successOf(op);
  const names = success.examples.length === 0 ? [undefined] : success.examples.map((e) => e.name);
  const responseNames = new Set(names);
  for (const example of op.requestExamples) {
    if (!responseNames.has(example.name)) {
      throw new Error(
        `${op.operationId}: request example ${example.name ?? '(unnamed)'} has no ${success.status} response example of that name`,
      );
    }
  }
  return names.map((name) => {
    const body =
      op.requestExamples.length === 0 ? undefined : op.requestExamples.find((e) => e.name === name);
    if (op.requestExamples.length > 0 && body === undefined) {
      throw new Error(
        `${op.operationId}: ${success.status} example ${name ?? '(unnamed)'} has no request example of that name`,
      );
    }
    const pathParams: Record<string, Json> = {};
    const query: Record<string, Json> = {};
    for (const parameter of op.parameters) {
      const example =
        parameter.examples.find((e) => e.name === name) ??
        parameter.examples.find((e) => e.name === undefined);
      if (example === undefined) {
        if (parameter.in === 'path')
          throw new Error(`${op.operationId}: path parameter ${parameter.name} has no example`);
        continue;
      }
      if (parameter.in === 'path') pathParams[parameter.name] = example.value;
      else if (parameter.in === 'query') query[parameter.name] = example.value;
    }
    return { name, pathParams, query, body: body?.value };
  });
}
