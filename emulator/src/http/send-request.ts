import type { Context } from 'hono';
import { ApiError, type ErrorCode } from '../errors.ts';
import type { BodyRenderer } from '../mime/render-pool.ts';
import type { CheckedRequest } from '../services/checked-request.ts';
import { parseJsonObject, readJsonBody } from './json-body.ts';
import type { RequestValidator } from './request-validator.ts';

/**
 * Request bodies of more than this many bytes are parsed and validated on a render thread
 * (prepare-request.ts): JSON.parse alone of a 24 MB body held the event loop about 200 ms.
 */
export const RAW_REQUEST_BYTES = 64 * 1024;

/** The schemas of the bodies that send mail (§4.3, §4.7, §4.8). */
export type SendSchema = 'SendEmailRequest' | 'ReplyRequest' | 'ForwardRequest';

/**
 * The edge's check of a send, reply or forward body (GUIDE: route → validate → service): read
 * as JSON (415, 400 invalid_json), validated against its schema, and only then handed to
 * SendService. A body of more than RAW_REQUEST_BYTES is parsed and validated on a render thread
 * when the renderer can (prepare-request.ts), with the same answers as here.
 */
export class SendRequests {
  constructor(
    private readonly validator: RequestValidator,
    private readonly renderer: BodyRenderer,
  ) {}

  async read(c: Context, schemaName: SendSchema): Promise<CheckedRequest> {
    const body = await readJsonBody(c, RAW_REQUEST_BYTES);
    if (body.kind === 'parsed') {
      this.validator.check(schemaName, body.value);
      return { request: body.value, large: {} };
    }
    if (this.renderer.parse === undefined) {
      const request = parseJsonObject(new TextDecoder().decode(body.bytes));
      this.validator.check(schemaName, request);
      return { request, large: {} };
    }
    const prepared = await this.renderer.parse(schemaName, body.bytes);
    if (!prepared.ok) {
      const { code, message, field } = prepared.error;
      throw new ApiError(code as ErrorCode, message, field);
    }
    return { request: prepared.body, large: prepared.large };
  }
}
