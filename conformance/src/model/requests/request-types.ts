/**
 * The shapes the request generators exchange: the context a check supplies (mailboxes, upload
 * ids), a generated request case with the answer the contract expects, and upload forms.
 */

export type Json = Record<string, unknown>;
export type Schema = Json;

/** Where the generated request data goes. */
export type RequestKind = 'json' | 'query' | 'multipart';

export interface RequestContext {
  /** The tenant's mailbox addresses (at least one); bodies send from these. */
  mailboxes: readonly string[];
  /**
   * Upload ids of the tenant's owner. Bodies attach up to 3 of them; the edge case "exactly at
   * the attachment limit" needs as many as the limit, the over-limit mutation one more.
   */
  uploadIds: readonly string[];
  /**
   * Recipients the operation counts before `cc` besides the body's lists: the one `to` of send
   * and forward, the original sender of a reply (default 1). The check must reply to an email
   * whose own recipients are only the replying mailbox, so that `replyAll` adds nobody.
   */
  implicitRecipients?: number;
  /** The contract (default: spec/openapi.yaml). */
  spec?: Json;
}

/** One generated request and what the contract says the answer is. */
export interface RequestCase {
  /**
   * A JSON value to send as JSON text, raw text (sent as is), or for listEmails the query
   * parameters (name → value).
   */
  body: string | object;
  /** The Content-Type to send; '' sends none. */
  contentType: string;
  /** Acceptable error codes; empty when the request is valid and must be accepted. */
  expectedCodes: string[];
  /** The `field` the error must name, when the contract determines it. */
  expectedField?: string;
  /** Which generator made it, and why the answer is what it is. */
  why: string;
  /** Members an accepted answer must have (uploads: the name, media type and size kept). */
  expectedResponse?: Json;
}

/** A part of a hand-built multipart/form-data body. */
export interface FormPart {
  /** The form field name; undefined leaves `name` out of Content-Disposition. */
  name?: string;
  /** Present for a file part. */
  filename?: string;
  /** The part's Content-Type; undefined sends none. */
  contentType?: string;
  content: string;
}

/** A valid upload form: the parts, and the boundary they are sent with. */
export interface UploadForm {
  boundary: string;
  parts: FormPart[];
}
