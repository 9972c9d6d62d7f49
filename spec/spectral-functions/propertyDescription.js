// mailtwin-property-description: every property in a `properties` map has a non-empty description.
//
// Runs on the UNRESOLVED document (rule option `resolved: false`): $refs are never followed, so a
// component schema is checked once, where it is defined, no matter how often it is referenced.
// Checked: components (schemas, parameters, headers, requestBodies, responses, pathItems,
// callbacks) and every inline schema under `paths` and `webhooks`. In OpenAPI 3.1 a property that
// is a $ref may carry a sibling `description`; that counts.
import { HTTP_METHODS, isObject, operationLabel } from './_oas.js';

const SCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
];
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_KEYWORDS = [
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
];

function hasDescription(schema) {
  return (
    isObject(schema) && typeof schema.description === 'string' && schema.description.trim() !== ''
  );
}

class Walker {
  constructor() {
    this.results = [];
  }

  schema(schema, path, label, trail = []) {
    if (!isObject(schema)) return;
    const where = trail.length > 0 ? `${label} at ${trail.join('.')}` : label;
    if (isObject(schema.properties)) {
      for (const [name, property] of Object.entries(schema.properties)) {
        if (!hasDescription(property)) {
          const problem =
            isObject(property) && typeof property.description === 'string' ? 'an empty' : 'no';
          this.results.push({
            message: `Property "${name}" in ${where} has ${problem} description; every property needs a non-empty description.`,
            path: [...path, 'properties', name],
          });
        }
      }
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      if (!isObject(schema[keyword])) continue;
      for (const [name, sub] of Object.entries(schema[keyword])) {
        this.schema(sub, [...path, keyword, name], label, [...trail, keyword, name]);
      }
    }
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      if (!Array.isArray(schema[keyword])) continue;
      schema[keyword].forEach((sub, i) =>
        this.schema(sub, [...path, keyword, i], label, [...trail, `${keyword}[${i}]`]),
      );
    }
    for (const keyword of SCHEMA_KEYWORDS) {
      this.schema(schema[keyword], [...path, keyword], label, [...trail, keyword]);
    }
  }

  content(content, path, label) {
    if (!isObject(content)) return;
    for (const [mediaType, media] of Object.entries(content)) {
      if (isObject(media))
        this.schema(media.schema, [...path, mediaType, 'schema'], `${label} (${mediaType}) schema`);
    }
  }

  parameter(parameter, path, label) {
    if (!isObject(parameter) || '$ref' in parameter) return;
    this.schema(parameter.schema, [...path, 'schema'], `${label} schema`);
    this.content(parameter.content, [...path, 'content'], label);
  }

  parameters(parameters, path, label) {
    if (!Array.isArray(parameters)) return;
    parameters.forEach((parameter, i) => {
      const name =
        isObject(parameter) && typeof parameter.name === 'string' ? parameter.name : String(i);
      this.parameter(parameter, [...path, i], `${label} parameter "${name}"`);
    });
  }

  headers(headers, path, label) {
    if (!isObject(headers)) return;
    for (const [name, header] of Object.entries(headers))
      this.parameter(header, [...path, name], `${label} header "${name}"`);
  }

  requestBody(body, path, label) {
    if (!isObject(body) || '$ref' in body) return;
    this.content(body.content, [...path, 'content'], label);
  }

  response(response, path, label) {
    if (!isObject(response) || '$ref' in response) return;
    this.headers(response.headers, [...path, 'headers'], label);
    this.content(response.content, [...path, 'content'], label);
  }

  callbacks(callbacks, path, label) {
    if (!isObject(callbacks)) return;
    for (const [name, callback] of Object.entries(callbacks)) {
      if (!isObject(callback) || '$ref' in callback) continue;
      for (const [expression, item] of Object.entries(callback)) {
        this.pathItem(
          item,
          [...path, name, expression],
          'callbacks',
          `${label} callback "${name}" ${expression}`,
        );
      }
    }
  }

  pathItem(item, path, section, key) {
    if (!isObject(item) || '$ref' in item) return;
    // section: 'paths' | 'webhooks' | 'components.pathItems' | 'callbacks' (key is then a full label)
    const standard = section === 'paths' || section === 'webhooks';
    const itemLabel =
      section === 'paths'
        ? key
        : section === 'webhooks'
          ? `webhook "${key}"`
          : section === 'callbacks'
            ? key
            : `${section}.${key}`;
    this.parameters(item.parameters, [...path, 'parameters'], itemLabel);
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const opPath = [...path, method];
      const label = standard
        ? operationLabel(section, key, method)
        : `${itemLabel} ${method.toUpperCase()}`;
      this.parameters(operation.parameters, [...opPath, 'parameters'], label);
      this.requestBody(operation.requestBody, [...opPath, 'requestBody'], `${label} request body`);
      if (isObject(operation.responses)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          this.response(response, [...opPath, 'responses', status], `${label} response ${status}`);
        }
      }
      this.callbacks(operation.callbacks, [...opPath, 'callbacks'], label);
    }
  }
}

function eachEntry(container, fn) {
  if (isObject(container)) for (const [name, value] of Object.entries(container)) fn(name, value);
}

export default function propertyDescription(document) {
  const walker = new Walker();
  if (!isObject(document)) return walker.results;
  const components = isObject(document.components) ? document.components : {};
  const c = ['components'];
  eachEntry(components.schemas, (name, schema) =>
    walker.schema(schema, [...c, 'schemas', name], `schema components.schemas.${name}`),
  );
  eachEntry(components.parameters, (name, p) =>
    walker.parameter(p, [...c, 'parameters', name], `components.parameters.${name}`),
  );
  eachEntry(components.headers, (name, h) =>
    walker.parameter(h, [...c, 'headers', name], `components.headers.${name}`),
  );
  eachEntry(components.requestBodies, (name, b) =>
    walker.requestBody(b, [...c, 'requestBodies', name], `components.requestBodies.${name}`),
  );
  eachEntry(components.responses, (name, r) =>
    walker.response(r, [...c, 'responses', name], `components.responses.${name}`),
  );
  eachEntry(components.pathItems, (name, item) =>
    walker.pathItem(item, [...c, 'pathItems', name], 'components.pathItems', name),
  );
  eachEntry(components.callbacks, (name, callback) =>
    walker.callbacks({ [name]: callback }, [...c, 'callbacks'], 'components'),
  );
  eachEntry(document.paths, (key, item) => walker.pathItem(item, ['paths', key], 'paths', key));
  eachEntry(document.webhooks, (key, item) =>
    walker.pathItem(item, ['webhooks', key], 'webhooks', key),
  );
  return walker.results;
}
