/**
 * Each spec file stands on its own (issue 12 item 16): no `$ref` leaves the file, so tools that
 * follow only internal references (and the OpenAPI Initiative's schema, as the independent
 * validator @seriousme/openapi-schema-validator applies it) accept each file by itself. The
 * control plane answers the API's EmailDetail, so spec/control.yaml carries a copy of it and of
 * every schema it refers to; the copies must stay identical to spec/openapi.yaml's.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { SPEC_FILES, type Json } from './limits/spec-walk.ts';

const [OPENAPI, CONTROL] = SPEC_FILES as [(typeof SPEC_FILES)[0], (typeof SPEC_FILES)[0]];

/** Every `$ref` in a document, with where it is. */
function refsOf(node: unknown, pointer = ''): { pointer: string; ref: string }[] {
  if (typeof node !== 'object' || node === null) return [];
  if (Array.isArray(node)) return node.flatMap((child, i) => refsOf(child, `${pointer}/${i}`));
  return Object.entries(node as Json).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string'
      ? [{ pointer, ref: child }]
      : refsOf(child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`),
  );
}

const schemasOf = (document: Json) =>
  ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;

/** A schema of openapi.yaml and every component schema it refers to, by name. */
function closure(document: Json, root: string): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const { ref } of refsOf(schemasOf(document)[name])) {
      const referred = /^#\/components\/schemas\/([^/]+)$/.exec(ref)?.[1];
      if (referred !== undefined) visit(referred);
    }
  };
  visit(root);
  return [...seen].sort();
}

/** The API schemas the control plane answers with (its POST /inbound 201 is EmailDetail). */
const FROM_THE_API = ['EmailDetail'];

describe.each(SPEC_FILES.map((spec) => ({ name: spec.path.split('/').pop() as string, spec })))(
  '$name on its own',
  ({ spec }) => {
    it('refers only to its own components: every $ref starts with #/', () => {
      const external = refsOf(spec.document).filter(({ ref }) => !ref.startsWith('#/'));
      expect(external.map((r) => `${r.pointer}: ${r.ref}`)).toEqual([]);
    });

    it('resolves every $ref inside the file', () => {
      const unresolved = refsOf(spec.document).filter(({ ref }) => {
        const target = ref
          .slice(2)
          .split('/')
          .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
          .reduce<unknown>((n, key) => (n as Json | undefined)?.[key], spec.document);
        return target === undefined;
      });
      expect(unresolved.map((r) => `${r.pointer}: ${r.ref}`)).toEqual([]);
    });

    it('is a valid OpenAPI 3.1 document for @seriousme/openapi-schema-validator, refs resolved', async () => {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(spec.document));
      expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
      // Resolving refs is where an external or dangling $ref is refused.
      expect(() => validator.resolveRefs()).not.toThrow();
    });
  },
);

describe('the API schemas spec/control.yaml carries', () => {
  const copied = [...new Set(FROM_THE_API.flatMap((root) => closure(OPENAPI.document, root)))];

  it('are EmailDetail and everything it refers to', () => {
    expect(copied).toEqual([
      'Address',
      'EmailDetail',
      'EmailSummary',
      'Folder',
      'MessageAttachment',
    ]);
  });

  it.each(copied)('has %s identical to spec/openapi.yaml', (name) => {
    const original = schemasOf(OPENAPI.document)[name];
    expect(original, `spec/openapi.yaml has ${name}`).toBeDefined();
    expect(
      schemasOf(CONTROL.document)[name],
      `spec/control.yaml's ${name} must be a copy of spec/openapi.yaml's: copy it again`,
    ).toEqual(original);
  });
});
