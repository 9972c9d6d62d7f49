import { Hono, type Context } from 'hono';
import { ApiError, quoteForMessage } from '../errors.ts';
import type { ApiEnv } from '../http/auth.ts';
import { nextTurn } from '../services/next-turn.ts';
import type { Download, IncomingFile, UploadService } from '../services/upload-service.ts';

/** Serves stored bytes with their media type and a download name (RFC 6266). */
export function fileResponse(c: Context, file: Download): Response {
  const ascii = file.name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return c.body(new Uint8Array(file.bytes), 200, {
    'Content-Type': file.contentType,
    'Content-Length': String(file.bytes.length),
    'Content-Disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
    'X-Content-Type-Options': 'nosniff',
  });
}

/** §4.9: exactly one non-empty file in the form field `file`, and nothing else. */
async function readUpload(c: Context): Promise<IncomingFile> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*(;|$)/i.test(type.trim())) {
    const media = type.split(';')[0]?.trim() ?? '';
    const sent = media === '' ? 'none' : `"${quoteForMessage(media)}"`;
    throw new ApiError(
      'unsupported_media_type',
      `Upload with Content-Type multipart/form-data; this request has ${sent}.`,
    );
  }
  // The right type, but its parts cannot be found: the form is what is wrong (D-12), not its type.
  if (!/;\s*boundary\s*=/i.test(type)) {
    throw new ApiError(
      'invalid_multipart',
      'multipart/form-data needs a boundary parameter (multipart/form-data; boundary=…) saying where each part starts.',
    );
  }
  let form: FormData;
  try {
    form = await c.req.raw.formData();
  } catch {
    throw new ApiError('invalid_multipart', 'The body is not valid multipart/form-data.');
  }
  const names = [...new Set([...form.keys()])];
  const unknown = names.find((name) => name !== 'file');
  if (unknown !== undefined)
    throw new ApiError(
      'unknown_field',
      `Only the form field "file" is accepted, not "${quoteForMessage(unknown)}".`,
      unknown || '""',
    );
  const entries = form.getAll('file');
  if (entries.length === 0)
    throw new ApiError('file_missing', 'Send one file in the form field "file".', 'file');
  if (entries.length > 1)
    throw new ApiError('too_many_files', `Send exactly one file; got ${entries.length}.`, 'file');
  const file = entries[0];
  if (!(file instanceof File))
    throw new ApiError('file_missing', 'The form field "file" must be a file, not text.', 'file');
  if (file.size === 0)
    throw new ApiError('file_empty', 'The file in field "file" is empty.', 'file');
  return {
    name: file.name === '' ? 'upload' : file.name,
    // RFC 7578 §4.4 (D-44): a part without Content-Type is text/plain; the parser says so.
    contentType: file.type === '' ? 'text/plain' : file.type,
    bytes: new Uint8Array(await file.arrayBuffer()),
  };
}

/** §4.9 upload and §4.10 download. */
export function attachmentRoutes(uploads: UploadService): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post('/', async (c) => {
    const file = await readUpload(c);
    // The form was parsed and the file copied out in the turn its last bytes arrived; hashing
    // and storing megabytes wait for a turn of their own (issue 27 item 1).
    await nextTurn();
    const upload = uploads.create(c.get('access').owner.id, file);
    const origin = new URL(c.req.url).origin;
    const { id, name, contentType, size } = upload;
    return c.json({ id, name, contentType, size, url: uploads.publicUrl(origin, upload) }, 201);
  });

  app.get('/:attachmentId', (c) =>
    fileResponse(c, uploads.download(c.get('access'), c.req.param('attachmentId'))),
  );

  return app;
}

/** D-43: `{origin}/content/attachments/<token>/<name>`, public, no key, never expiring. */
export function publicContentRoutes(uploads: UploadService): Hono {
  return new Hono().get('/attachments/:token/:name', (c) => {
    const file = uploads.publicDownload(c.req.param('token'));
    if (file === undefined) throw new ApiError('not_found', 'No such file.');
    return fileResponse(c, file);
  });
}
