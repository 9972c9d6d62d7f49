// mailtwin-media-examples:
//  1. every application/json media type object in a request body or response (under `paths`,
//     `webhooks` and their callbacks) has an `example` or a non-empty `examples` map; a media type
//     whose schema is a `format: binary` string needs none (multipart bodies are not
//     application/json, so they need none either);
//  2. every example given on ANY media type object (`example`, `examples.*.value`) validates
//     against that media type's schema with Ajv's JSON Schema 2020-12 build plus ajv-formats.
//
// Runs on the RESOLVED document, so $refs are already inlined (circular schemas are not supported).
// OpenAPI's readOnly/writeOnly semantics are honoured for `required`: a readOnly property is not
// required in a request example, a writeOnly property is not required in a response example.
//
// ajv and ajv-formats are bare package imports: Spectral's ruleset bundler keeps them external and
// its loader require()s them relative to the ruleset file, i.e. from this repository's node_modules.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { HTTP_METHODS, isObject, operationLabel } from './_oas.js';

function isJsonMediaType(mediaType) {
  return mediaType.split(';')[0].trim().toLowerCase() === 'application/json';
}

function isBinarySchema(schema) {
  return (
    isObject(schema) &&
    schema.format === 'binary' &&
    (schema.type === undefined || schema.type === 'string')
  );
}

/** Copy of `schema` without `required` entries for properties flagged with `flag` (readOnly/writeOnly). */
function dropFlaggedRequired(schema, flag, seen = new Map()) {
  if (Array.isArray(schema)) return schema.map((item) => dropFlaggedRequired(item, flag, seen));
  if (!isObject(schema)) return schema;
  if (seen.has(schema)) return seen.get(schema);
  const copy = {};
  seen.set(schema, copy);
  for (const [key, value] of Object.entries(schema)) {
    // `properties`, `$defs`, ... are maps of schemas; `example`/`examples`/`enum`/`const` are data.
    copy[key] = ['example', 'examples', 'enum', 'const', 'default'].includes(key)
      ? value
      : dropFlaggedRequired(value, flag, seen);
  }
  if (Array.isArray(schema.required) && isObject(schema.properties)) {
    copy.required = schema.required.filter(
      (name) => !(isObject(schema.properties[name]) && schema.properties[name][flag] === true),
    );
  }
  return copy;
}

function instancePathSegments(instancePath) {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function describeAjvError(error) {
  let text = `${error.instancePath === '' ? '(root)' : error.instancePath} ${error.message}`;
  const params = error.params ?? {};
  if (params.additionalProperty !== undefined) text += ` ("${params.additionalProperty}")`;
  if (params.unevaluatedProperty !== undefined) text += ` ("${params.unevaluatedProperty}")`;
  if (Array.isArray(params.allowedValues))
    text += `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return text;
}

class Checker {
  constructor() {
    this.results = [];
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.validators = { request: new WeakMap(), response: new WeakMap(), other: new WeakMap() };
  }

  validator(schema, direction) {
    if (typeof schema === 'boolean') return { validate: this.ajv.compile(schema) };
    const cache = this.validators[direction];
    if (cache.has(schema)) return cache.get(schema);
    let entry;
    try {
      const prepared =
        direction === 'request'
          ? dropFlaggedRequired(schema, 'readOnly')
          : direction === 'response'
            ? dropFlaggedRequired(schema, 'writeOnly')
            : schema;
      entry = { validate: this.ajv.compile(prepared) };
    } catch (error) {
      entry = { compileError: error instanceof Error ? error.message : String(error) };
    }
    cache.set(schema, entry);
    return entry;
  }

  media(media, path, label, { requireExample, direction }) {
    if (!isObject(media)) return;
    const examples = isObject(media.examples) ? Object.entries(media.examples) : [];
    const hasExample = media.example !== undefined || examples.length > 0;
    if (!hasExample) {
      if (requireExample) {
        this.results.push({
          message: `${label} has no example; give it an \`example\` or a non-empty \`examples\` map.`,
          path,
        });
      }
      return;
    }
    const schema = media.schema;
    if (!isObject(schema) && typeof schema !== 'boolean') return;
    const given = [];
    if (media.example !== undefined)
      given.push({ name: 'example', value: media.example, path: [...path, 'example'] });
    for (const [name, example] of examples) {
      if (isObject(example) && 'value' in example) {
        given.push({
          name: `examples.${name}.value`,
          value: example.value,
          path: [...path, 'examples', name, 'value'],
        });
      }
    }
    if (given.length === 0) return;
    const { validate, compileError } = this.validator(schema, direction);
    if (compileError !== undefined) {
      this.results.push({
        message: `${label}: Ajv cannot compile the schema, so its examples cannot be checked: ${compileError}`,
        path: [...path, 'schema'],
      });
      return;
    }
    for (const example of given) {
      if (validate(example.value)) continue;
      for (const error of validate.errors ?? []) {
        this.results.push({
          message: `${label} ${example.name} does not match the schema: ${describeAjvError(error)}.`,
          path: [...example.path, ...instancePathSegments(error.instancePath)],
        });
      }
    }
  }

  content(content, path, label, options) {
    if (!isObject(content)) return;
    for (const [mediaType, media] of Object.entries(content)) {
      const requireExample =
        options.requireExample &&
        isJsonMediaType(mediaType) &&
        isObject(media) &&
        !isBinarySchema(media.schema);
      this.media(media, [...path, mediaType], `${label} (${mediaType})`, {
        ...options,
        requireExample,
      });
    }
  }

  parameters(parameters, path, label) {
    if (!Array.isArray(parameters)) return;
    parameters.forEach((parameter, i) => {
      if (!isObject(parameter)) return;
      const name = typeof parameter.name === 'string' ? parameter.name : String(i);
      this.content(parameter.content, [...path, i, 'content'], `${label} parameter "${name}"`, {
        requireExample: false,
        direction: 'request',
      });
    });
  }

  pathItem(item, path, labelFor) {
    if (!isObject(item)) return;
    this.parameters(item.parameters, [...path, 'parameters'], labelFor('').trim());
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const opPath = [...path, method];
      const label = labelFor(method);
      this.parameters(operation.parameters, [...opPath, 'parameters'], label);
      if (isObject(operation.requestBody)) {
        this.content(
          operation.requestBody.content,
          [...opPath, 'requestBody', 'content'],
          `${label} request body`,
          {
            requireExample: true,
            direction: 'request',
          },
        );
      }
      if (isObject(operation.responses)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (!isObject(response)) continue;
          const responsePath = [...opPath, 'responses', status];
          this.content(
            response.content,
            [...responsePath, 'content'],
            `${label} response ${status}`,
            {
              requireExample: true,
              direction: 'response',
            },
          );
          if (isObject(response.headers)) {
            for (const [name, header] of Object.entries(response.headers)) {
              if (!isObject(header)) continue;
              this.content(
                header.content,
                [...responsePath, 'headers', name, 'content'],
                `${label} response ${status} header "${name}"`,
                {
                  requireExample: false,
                  direction: 'response',
                },
              );
            }
          }
        }
      }
      if (isObject(operation.callbacks)) {
        for (const [name, callback] of Object.entries(operation.callbacks)) {
          if (!isObject(callback)) continue;
          for (const [expression, callbackItem] of Object.entries(callback)) {
            this.pathItem(callbackItem, [...opPath, 'callbacks', name, expression], (m) =>
              `${label} callback "${name}" ${m.toUpperCase()}`.trim(),
            );
          }
        }
      }
    }
  }
}

export default function mediaTypeExamples(document) {
  const checker = new Checker();
  if (!isObject(document)) return checker.results;
  for (const section of ['paths', 'webhooks']) {
    if (!isObject(document[section])) continue;
    for (const [key, item] of Object.entries(document[section])) {
      checker.pathItem(item, [section, key], (method) => operationLabel(section, key, method));
    }
  }
  return checker.results;
}
