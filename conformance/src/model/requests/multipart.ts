/**
 * The upload form (§4.9): valid multipart/form-data forms from the schema's binary properties,
 * their encoding (RFC 7578) and what an accepted upload's answer keeps (§2.4, D-44).
 */
import fc from 'fast-check';
import { propertiesOf, type OperationInfo } from './operations.ts';
import type { FormPart, Json, UploadForm } from './request-types.ts';
import { ODD_NAMES } from './text-values.ts';

const MEDIA_TYPES = ['application/pdf', 'text/plain', 'image/png', 'text/csv', 'application/zip'];

const boundaryArb = fc.stringMatching(/^[A-Za-z0-9_-]{12,40}$/).map((b) => `mtw${b}`);

const fileName = fc
  .oneof(
    { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._()-]{0,30}$/) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_NAMES).map((n) => `${n}.txt`) },
  )
  .map((n) => n.trim())
  .filter((n) => n !== '' && n !== '.' && n !== '..');

// Built on first use, not at import: fast-check's first string of unit 'binary' indexes every
// code point (about a second), which a dry run, reading the check files only, should not pay.
let fileContentArb: fc.Arbitrary<string> | undefined;
export const fileContent = (): fc.Arbitrary<string> =>
  (fileContentArb ??= fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 100 }),
  ));

/** `file` parts from the schema's binary properties (contentMediaType), with the prose's file. */
export function validForm(info: OperationInfo, spec: Json): fc.Arbitrary<UploadForm> {
  const files = propertiesOf(spec, info.schema).filter(([, s]) => 'contentMediaType' in s);
  return fc
    .tuple(
      boundaryArb,
      fc.tuple(
        ...files.map(([name]) =>
          fc.record({
            name: fc.constant(name),
            filename: fileName,
            contentType: fc.constantFrom(...MEDIA_TYPES),
            content: fileContent(),
          }),
        ),
      ),
    )
    .map(([boundary, parts]) => ({
      boundary,
      parts: parts.map((p) => ({
        ...p,
        content: p.content.split(boundary).join('x'),
      })) as FormPart[],
    }));
}

/** Builds a multipart/form-data body (RFC 7578), names and file names as UTF-8. */
export function encodeMultipart(
  parts: readonly FormPart[],
  boundary: string,
  close = true,
): string {
  const chunks = parts.map((part) => {
    const disposition = [
      'form-data',
      ...(part.name === undefined ? [] : [`name="${part.name}"`]),
      ...(part.filename === undefined ? [] : [`filename="${part.filename}"`]),
    ].join('; ');
    const headers = [`Content-Disposition: ${disposition}`];
    if (part.contentType !== undefined) headers.push(`Content-Type: ${part.contentType}`);
    return `--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n${part.content}\r\n`;
  });
  return chunks.join('') + (close ? `--${boundary}--\r\n` : '');
}

/**
 * §2.4, D-44: the upload keeps its file name and media type (`text/plain`, RFC 7578, when
 * the part has none); its size is the file's bytes.
 */
export function uploadExpectation(form: UploadForm): Json {
  const file = form.parts.find((p) => p.filename !== undefined) as FormPart;
  return {
    name: file.filename,
    contentType: file.contentType ?? 'text/plain',
    size: Buffer.byteLength(file.content, 'utf8'),
  };
}
