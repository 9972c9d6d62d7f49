// mailtwin-contract-layers: in a contract with two layers (a top-level `x-contract-layers`, as
// spec/openapi.yaml has), every response status, every enum or const and every closed object
// (`additionalProperties: false`) is either documented or decided (issue 14 item 1):
// - documented: `x-documented: <rule id>` (or a list), a documented rule of
//   conformance/rules.yaml, whose id names the section of the service document (`2.4-R3`);
// - decided: `x-decided: D-n` (or a list), a row of spec/DECISIONS.md, or
//   `x-decided: {<keyword>: D-n}` for one keyword of a schema.
// A status is marked on its response object (a `$ref` response on the component it points to);
// an enum, const or closed object on its own schema (the keyword form), or on any enclosing
// schema, property, parameter or response as a whole. Malformed marks are flagged too.
// Documents without `x-contract-layers` (the control plane, whose every part is mailtwin's
// own) are not checked.
import { isObject, pointer } from './_oas.js';

const DECIDED = /^D-\d+$/;
const DOCUMENTED = /^\d+(?:\.\d+)?-R\d+$/;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const KEYWORDS = [
  ['enum', (node) => Array.isArray(node.enum), 'enum'],
  ['const', (node) => 'const' in node, 'const'],
  ['additionalProperties', (node) => node.additionalProperties === false, 'closed object'],
];

function ids(value, pattern) {
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  return list !== undefined && list.length > 0 && list.every((v) => pattern.test(String(v)));
}

/** Whole marks of a node: documented or decided as a whole. */
function wholeMark(node) {
  if (!isObject(node)) return false;
  if (node['x-documented'] !== undefined) return true;
  const decided = node['x-decided'];
  return decided !== undefined && !isObject(decided);
}

function malformed(node) {
  const problems = [];
  const decided = node['x-decided'];
  if (decided !== undefined) {
    const ok = isObject(decided)
      ? Object.keys(decided).length > 0 && Object.values(decided).every((v) => ids(v, DECIDED))
      : ids(decided, DECIDED);
    if (!ok)
      problems.push({
        key: 'x-decided',
        message:
          'x-decided must be D-n, a list of D-n, or a map of schema keyword to D-n (rows of spec/DECISIONS.md)',
      });
  }
  const documented = node['x-documented'];
  if (documented !== undefined && !ids(documented, DOCUMENTED)) {
    problems.push({
      key: 'x-documented',
      message:
        'x-documented must be a documented rule id <section>-R<n> of conformance/rules.yaml, or a list of them',
    });
  }
  return problems;
}

function walk(node, path, ancestors, visit) {
  if (Array.isArray(node)) {
    node.forEach((child, i) => walk(child, [...path, i], ancestors, visit));
    return;
  }
  if (!isObject(node)) return;
  visit(node, path, ancestors);
  for (const [key, child] of Object.entries(node)) {
    if (key === 'example' || key === 'examples' || key === 'x-decided') continue;
    walk(child, [...path, key], [...ancestors, node], visit);
  }
}

export default function contractLayers(document) {
  const results = [];
  if (!isObject(document) || document['x-contract-layers'] === undefined) return results;

  walk(document, [], [], (node, path, ancestors) => {
    for (const { key, message } of malformed(node)) results.push({ message, path: [...path, key] });
    const keywordMarks = isObject(node['x-decided']) ? node['x-decided'] : {};
    for (const [keyword, present, label] of KEYWORDS) {
      if (!present(node)) continue;
      if (keyword in keywordMarks || wholeMark(node) || ancestors.some(wholeMark)) continue;
      results.push({
        message: `${label} at ${pointer(path)} is neither documented (x-documented: <rule id>) nor decided (x-decided: {${keyword}: D-n})`,
        path: [...path, keyword],
      });
    }
  });

  const checkResponses = (responses, basePath) => {
    if (!isObject(responses)) return;
    for (const [status, response] of Object.entries(responses)) {
      if (!isObject(response) || typeof response.$ref === 'string') continue; // the component is checked
      if (wholeMark(response)) continue;
      results.push({
        message: `response ${status} at ${pointer(basePath)} is neither documented (x-documented: <rule id>) nor decided (x-decided: D-n)`,
        path: [...basePath, status],
      });
    }
  };
  for (const section of ['paths', 'webhooks']) {
    const items = isObject(document[section]) ? document[section] : {};
    for (const [key, item] of Object.entries(items)) {
      if (!isObject(item)) continue;
      for (const method of METHODS) {
        const operation = item[method];
        if (isObject(operation))
          checkResponses(operation.responses, [section, key, method, 'responses']);
      }
    }
  }
  const components = isObject(document.components) ? document.components : {};
  if (isObject(components.responses)) {
    for (const [name, response] of Object.entries(components.responses)) {
      if (isObject(response) && !wholeMark(response)) {
        results.push({
          message: `response ${name} at ${pointer(['components', 'responses'])} is neither documented (x-documented: <rule id>) nor decided (x-decided: D-n)`,
          path: ['components', 'responses', name],
        });
      }
    }
  }
  return results;
}
