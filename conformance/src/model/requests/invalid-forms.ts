/**
 * Invalid mutations of the upload form (§4.9, D-28): wrong, incomplete and malformed
 * multipart/form-data bodies.
 */
import fc from 'fast-check';
import { propertiesOf, type OperationInfo } from './operations.ts';
import { encodeMultipart, fileContent, validForm } from './multipart.ts';
import type { FormPart, Json, RequestCase } from './request-types.ts';
import { makeCase, type CaseArb } from './slots.ts';

/** Wrong, incomplete and malformed upload forms (§4.9, D-28). */
export function invalidForm(info: OperationInfo, spec: Json): CaseArb {
  const form = validForm(info, spec);
  const known = new Set(propertiesOf(spec, info.schema).map(([n]) => n));
  const required = (info.schema.required ?? []) as string[];
  const filesLimit = info.limits.find((l) => l.keyword === 'count');
  const multipart = (
    parts: FormPart[],
    boundary: string,
    codes: string[],
    why: string,
    field?: string,
    close = true,
  ): RequestCase =>
    makeCase(
      encodeMultipart(parts, boundary, close),
      codes,
      why,
      field,
      `multipart/form-data; boundary=${boundary}`,
    );
  const fieldName = fc.oneof(
    fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,12}$/),
    fc.constantFrom('File', 'FILE', 'files', 'file[]', 'upload', 'attachment', 'note'),
  );
  const mutations: CaseArb[] = [
    // required part missing: no part at all, or the file under another name
    form.map((f) => multipart([], f.boundary, ['file_missing'], 'no part at all', required[0])),
    // an extra field, as text or as a file (additionalProperties: false)
    fc
      .tuple(
        form,
        fieldName.filter((n) => !known.has(n)),
        fc.boolean(),
        fc.boolean(),
      )
      .map(([f, name, asFile, before]) => {
        const extra: FormPart = asFile
          ? { name, filename: 'extra.txt', contentType: 'text/plain', content: 'extra' }
          : { name, content: 'extra' };
        const parts = before ? [extra, ...f.parts] : [...f.parts, extra];
        return multipart(
          parts,
          f.boundary,
          ['unknown_field'],
          `extra form field ${JSON.stringify(name)}${asFile ? ' (a file)' : ''}`,
          name,
        );
      }),
    fc
      .tuple(
        form,
        fieldName.filter((n) => !known.has(n)),
      )
      .map(([f, name]) =>
        multipart(
          f.parts.map((p) => ({ ...p, name })),
          f.boundary,
          ['unknown_field', 'file_missing'],
          `the file under ${JSON.stringify(name)} instead of file`,
          undefined,
        ),
      ),
    // an empty file
    form.map((f) =>
      multipart(
        f.parts.map((p) => ({ ...p, content: '' })),
        f.boundary,
        ['file_empty'],
        'the file is empty (§4.9)',
        'file',
      ),
    ),
    // two files (x-limits filesPerUpload)
    fc.tuple(form, fileContent()).map(([f, content]) =>
      multipart(
        [
          ...f.parts,
          {
            ...(f.parts[0] as FormPart),
            filename: 'second.txt',
            content: content.split(f.boundary).join('x'),
          },
        ],
        f.boundary,
        [filesLimit?.errorCode ?? 'too_many_files'],
        'two files in the field file (§4.9, §8)',
        'file',
      ),
    ),
    // text, not a file
    form.map((f) =>
      multipart(
        f.parts.map((p) => ({ name: p.name as string, content: p.content })),
        f.boundary,
        ['file_missing'],
        'the field file holds text, not a file',
        'file',
      ),
    ),
    // malformed multipart
    fc
      .tuple(
        form,
        fc.constantFrom(
          'bad boundary',
          'no closing boundary',
          'part without name',
          'part without headers',
          'garbage',
          'empty body',
          'bad part header',
          'no CRLF after headers',
        ),
      )
      .map(([f, how]) => {
        const codes = ['invalid_multipart', 'file_missing'];
        const why = `malformed multipart: ${how}`;
        const type = `multipart/form-data; boundary=${f.boundary}`;
        const file = f.parts[0] as FormPart;
        switch (how) {
          case 'bad boundary':
            return makeCase(
              encodeMultipart(f.parts, `${f.boundary}X`),
              codes,
              why,
              undefined,
              type,
            );
          case 'no closing boundary':
            return multipart(f.parts, f.boundary, codes, why, undefined, false);
          case 'part without name':
            return multipart([{ ...file, name: undefined }] as FormPart[], f.boundary, codes, why);
          case 'part without headers':
            return makeCase(
              `--${f.boundary}\r\n\r\n${file.content}\r\n--${f.boundary}--\r\n`,
              codes,
              why,
              undefined,
              type,
            );
          case 'garbage':
            return makeCase('this is not a multipart body', codes, why, undefined, type);
          case 'empty body':
            return makeCase('', codes, why, undefined, type);
          case 'bad part header':
            return makeCase(
              `--${f.boundary}\r\nnot a header line\r\n\r\n${file.content}\r\n--${f.boundary}--\r\n`,
              codes,
              why,
              undefined,
              type,
            );
          default:
            return makeCase(
              `--${f.boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"${file.content}--${f.boundary}--`,
              codes,
              why,
              undefined,
              type,
            );
        }
      }),
    // not multipart/form-data (D-28)
    fc
      .tuple(
        form,
        fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/octet-stream',
          'multipart/mixed',
          '',
        ),
      )
      .map(([f, type]) => {
        const body =
          type === 'application/json'
            ? '{"file":"x"}'
            : type === 'application/x-www-form-urlencoded'
              ? 'file=x'
              : encodeMultipart(f.parts, f.boundary);
        const sent = type === 'multipart/mixed' ? `multipart/mixed; boundary=${f.boundary}` : type;
        return makeCase(
          body,
          ['unsupported_media_type'],
          `an upload sent as ${JSON.stringify(sent || '(no Content-Type)')} (D-28)`,
          undefined,
          sent,
        );
      }),
    form.map((f) =>
      makeCase(
        encodeMultipart(f.parts, f.boundary),
        ['invalid_multipart', 'unsupported_media_type'],
        'multipart/form-data without its boundary parameter',
        undefined,
        'multipart/form-data',
      ),
    ),
  ];
  return fc.oneof(...mutations);
}
