// mailtwin-ignored-header: no header that OpenAPI 3.1 says it ignores is described as one.
//
//  - A header parameter named Accept, Content-Type or Authorization "SHALL be ignored"
//    (OpenAPI 3.1.0 §4.8.12.1, Parameter Object, `name`): the media types of the request body
//    and responses say what Content-Type and Accept carry, and `securitySchemes` says what
//    Authorization carries.
//  - A response header named Content-Type "SHALL be ignored" (§4.8.17.1, Response Object,
//    `headers`): the response's `content` media type says it.
//  - An encoding's Content-Type header "SHALL be ignored" (§4.8.15.1, Encoding Object,
//    `headers`): its `contentType` says it.
// Header names are compared case-insensitively (RFC 9110 §5.1).
//
// Runs on the UNRESOLVED document: a `$ref`'d parameter or response is checked once, where it
// is defined (components), not at every use.
import { HTTP_METHODS, isObject, operationLabel } from './_oas.js';

const IGNORED_PARAMETERS = {
  accept: 'the media types of its responses',
  'content-type': "the request body's media type",
  authorization: 'a security scheme (components.securitySchemes)',
};

function checkParameters(parameters, path, where, results) {
  if (!Array.isArray(parameters)) return;
  parameters.forEach((parameter, i) => {
    if (!isObject(parameter) || parameter.in !== 'header' || typeof parameter.name !== 'string')
      return;
    const instead = IGNORED_PARAMETERS[parameter.name.toLowerCase()];
    if (instead === undefined) return;
    results.push({
      message: `${where} declares the header parameter "${parameter.name}", which OpenAPI 3.1 ignores (§4.8.12.1); describe it with ${instead}.`,
      path: [...path, i],
    });
  });
}

function checkHeaders(headers, path, where, section, results) {
  if (!isObject(headers)) return;
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() !== 'content-type') continue;
    results.push({
      message: `${where} declares a "${name}" header, which OpenAPI 3.1 ignores (${section}); the media type says it.`,
      path: [...path, name],
    });
  }
}

function checkContent(content, path, where, results) {
  if (!isObject(content)) return;
  for (const [mediaType, media] of Object.entries(content)) {
    if (!isObject(media) || !isObject(media.encoding)) continue;
    for (const [property, encoding] of Object.entries(media.encoding)) {
      if (!isObject(encoding)) continue;
      checkHeaders(
        encoding.headers,
        [...path, mediaType, 'encoding', property, 'headers'],
        `${where} (${mediaType}, encoding of "${property}")`,
        '§4.8.15.1',
        results,
      );
    }
  }
}

function checkResponse(response, path, where, results) {
  if (!isObject(response) || typeof response.$ref === 'string') return;
  checkHeaders(response.headers, [...path, 'headers'], where, '§4.8.17.1', results);
  checkContent(response.content, [...path, 'content'], where, results);
}

function checkPathItem(item, path, labelFor, results) {
  if (!isObject(item) || typeof item.$ref === 'string') return;
  checkParameters(item.parameters, [...path, 'parameters'], labelFor('').trim(), results);
  for (const method of HTTP_METHODS) {
    const operation = item[method];
    if (!isObject(operation)) continue;
    const opPath = [...path, method];
    const label = labelFor(method);
    checkParameters(operation.parameters, [...opPath, 'parameters'], label, results);
    if (isObject(operation.requestBody) && typeof operation.requestBody.$ref !== 'string') {
      checkContent(
        operation.requestBody.content,
        [...opPath, 'requestBody', 'content'],
        `${label} request body`,
        results,
      );
    }
    if (isObject(operation.responses)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        checkResponse(
          response,
          [...opPath, 'responses', status],
          `${label} response ${status}`,
          results,
        );
      }
    }
    if (isObject(operation.callbacks)) {
      for (const [name, callback] of Object.entries(operation.callbacks)) {
        if (!isObject(callback)) continue;
        for (const [expression, callbackItem] of Object.entries(callback)) {
          checkPathItem(
            callbackItem,
            [...opPath, 'callbacks', name, expression],
            (m) => `${label} callback "${name}" ${m.toUpperCase()}`.trim(),
            results,
          );
        }
      }
    }
  }
}

export default function ignoredHeader(document) {
  const results = [];
  if (!isObject(document)) return results;
  for (const section of ['paths', 'webhooks']) {
    if (!isObject(document[section])) continue;
    for (const [key, item] of Object.entries(document[section])) {
      checkPathItem(
        item,
        [section, key],
        (method) => operationLabel(section, key, method),
        results,
      );
    }
  }
  const components = isObject(document.components) ? document.components : {};
  if (isObject(components.pathItems)) {
    for (const [key, item] of Object.entries(components.pathItems)) {
      checkPathItem(
        item,
        ['components', 'pathItems', key],
        (m) => `path item "${key}" ${m.toUpperCase()}`.trim(),
        results,
      );
    }
  }
  if (isObject(components.parameters)) {
    for (const [key, parameter] of Object.entries(components.parameters)) {
      // One parameter, not a list: check it as a list of one and report at its own path.
      const found = [];
      checkParameters(
        [parameter],
        ['components', 'parameters'],
        `components.parameters.${key}`,
        found,
      );
      for (const result of found)
        results.push({ ...result, path: ['components', 'parameters', key] });
    }
  }
  if (isObject(components.responses)) {
    for (const [key, response] of Object.entries(components.responses)) {
      checkResponse(
        response,
        ['components', 'responses', key],
        `components.responses.${key}`,
        results,
      );
    }
  }
  if (isObject(components.requestBodies)) {
    for (const [key, body] of Object.entries(components.requestBodies)) {
      if (!isObject(body)) continue;
      checkContent(
        body.content,
        ['components', 'requestBodies', key, 'content'],
        `components.requestBodies.${key}`,
        results,
      );
    }
  }
  return results;
}
