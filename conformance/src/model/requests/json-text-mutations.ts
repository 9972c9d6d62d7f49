/**
 * Invalid mutations of the JSON text itself: malformed text, a value that is not an object,
 * and the body sent as another media type (D-28).
 */
import fc from 'fast-check';
import type { Json } from './request-types.ts';
import { makeCase, type CaseArb } from './slots.ts';

/** The JSON text itself broken, or sent as another media type (D-28). */
export function jsonTextMutations(base: fc.Arbitrary<Json>): CaseArb[] {
  const text = base.map((b) => JSON.stringify(b));
  const malformed: CaseArb = fc
    .tuple(
      text,
      fc.constantFrom(
        'truncated',
        'trailing comma',
        'single quotes',
        'garbage after',
        'two objects',
        'comment',
        'unquoted key',
        'NaN',
        'bare word',
      ),
      fc.nat(),
    )
    .map(([json, how, pick]) => {
      let broken: string;
      switch (how) {
        case 'truncated':
          broken = json.slice(0, pick % json.length);
          break;
        case 'trailing comma':
          broken = `${json.slice(0, -1)},}`;
          break;
        case 'single quotes':
          broken = json.replace(/"/g, "'");
          break;
        case 'garbage after':
          broken = `${json}x`;
          break;
        case 'two objects':
          broken = `${json}${json}`;
          break;
        case 'comment':
          broken = `/* note */${json}`;
          break;
        case 'unquoted key':
          broken = json.replace(/"([A-Za-z_]+)":/, '$1:');
          break;
        case 'NaN':
          broken = json === '{}' ? '{"x":NaN}' : `${json.slice(0, -1)},"x":NaN}`;
          break;
        default:
          broken = 'undefined';
      }
      if (broken === json) broken = `${json}}`;
      return makeCase(broken, ['invalid_json'], `malformed JSON (${how})`);
    });
  const notObject: CaseArb = fc
    .tuple(base, fc.constantFrom('[]', '"text"', '42', 'null', 'true', 'array of the body'))
    .map(([body, value]) =>
      makeCase(
        value === 'array of the body' ? JSON.stringify([body]) : value,
        ['invalid_json', 'invalid_field'],
        `JSON that is not an object: ${value}`,
      ),
    );
  const mediaType: CaseArb = fc
    .tuple(
      text,
      fc.constantFrom(
        '',
        'text/plain',
        'text/plain; charset=utf-8',
        'text/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/octet-stream',
        'application/merge-patch+json',
        'application/vnd.api+json',
        'application/jsonx',
        'application/json-seq',
        'application/*',
        '*/*',
        'json',
      ),
    )
    .map(([json, type]) =>
      makeCase(
        json,
        ['unsupported_media_type'],
        `JSON sent as ${JSON.stringify(type || '(no Content-Type)')} (D-28)`,
        undefined,
        type,
      ),
    );
  return [malformed, notObject, mediaType];
}
