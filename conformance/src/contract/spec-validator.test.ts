import { describe, expect, it } from 'vitest';
import type { ResponseToValidate } from './response-findings.ts';
import { SpecValidator } from './spec-validator.ts';

const encoder = new TextEncoder();

function json(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** A response to GET /mailboxes with a valid body unless overridden. */
function response(overrides: Partial<ResponseToValidate> = {}): ResponseToValidate {
  return {
    method: 'GET',
    path: '/mailboxes',
    status: 200,
    contentType: 'application/json',
    body: json([{ address: 'alice@acme.test', domain: 'acme.test', displayName: 'Alice' }]),
    ...overrides,
  };
}

describe('SpecValidator.operationKeys', () => {
  it('lists the ten operations of spec/openapi.yaml as sorted METHOD /path strings', () => {
    expect(new SpecValidator().operationKeys()).toEqual([
      'DELETE /emails/{emailId}',
      'GET /attachments/{attachmentId}',
      'GET /emails',
      'GET /emails/{emailId}',
      'GET /mailboxes',
      'PATCH /emails/{emailId}',
      'POST /attachments',
      'POST /emails/send',
      'POST /emails/{emailId}/forward',
      'POST /emails/{emailId}/reply',
    ]);
  });
});

describe('SpecValidator.match', () => {
  it('prefers the literal /emails/send over /emails/{emailId} for POST', () => {
    expect(new SpecValidator().match('POST', '/emails/send')).toEqual({
      operationId: 'sendEmail',
      method: 'post',
      pathTemplate: '/emails/send',
    });
  });

  it('matches a concrete email id to the reply operation', () => {
    expect(new SpecValidator().match('post', '/emails/abc/reply')).toEqual({
      operationId: 'replyToEmail',
      method: 'post',
      pathTemplate: '/emails/{emailId}/reply',
    });
  });

  it('matches a concrete email id to getEmail for GET', () => {
    expect(new SpecValidator().match('GET', '/emails/01JD8Z3Q4T5V6W7X8Y9Z0A1B2C')).toEqual({
      operationId: 'getEmail',
      method: 'get',
      pathTemplate: '/emails/{emailId}',
    });
  });

  it('returns undefined for a path the contract does not document', () => {
    const validator = new SpecValidator();
    expect(validator.match('GET', '/nope')).toBeUndefined();
    expect(validator.match('GET', '/emails/abc/def')).toBeUndefined();
  });

  it('returns undefined for a documented path with an undocumented method', () => {
    expect(new SpecValidator().match('PUT', '/mailboxes')).toBeUndefined();
  });
});

describe('SpecValidator.validate', () => {
  it('accepts a valid 200 GET /mailboxes body', () => {
    expect(new SpecValidator().validate(response())).toEqual([]);
  });

  it('accepts a null displayName and a content type with a charset parameter', () => {
    const body = json([{ address: 'bob@acme.test', domain: 'acme.test', displayName: null }]);
    expect(
      new SpecValidator().validate(
        response({ body, contentType: 'application/json; charset=utf-8' }),
      ),
    ).toEqual([]);
  });

  it('accepts extra properties, which the contract allows in responses', () => {
    const body = json([
      { address: 'alice@acme.test', domain: 'acme.test', displayName: 'Alice', quota: 5 },
    ]);
    expect(new SpecValidator().validate(response({ body }))).toEqual([]);
  });

  it('flags a missing required property, naming it', () => {
    const body = json([{ address: 'alice@acme.test', domain: 'acme.test' }]);
    expect(new SpecValidator().validate(response({ body }))).toEqual([
      "listMailboxes (GET /mailboxes) status 200: body/0 must have required property 'displayName'",
    ]);
  });

  it('flags a property of the wrong type', () => {
    const body = json([{ address: 'alice@acme.test', domain: 42, displayName: 'Alice' }]);
    expect(new SpecValidator().validate(response({ body }))).toEqual([
      'listMailboxes (GET /mailboxes) status 200: body/0/domain must be string',
    ]);
  });

  it('flags an object where the contract requires a bare array', () => {
    const body = json({ mailboxes: [] });
    expect(new SpecValidator().validate(response({ body }))).toEqual([
      'listMailboxes (GET /mailboxes) status 200: body must be array',
    ]);
  });

  it('flags a body that is not JSON', () => {
    expect(new SpecValidator().validate(response({ body: encoder.encode('<html>') }))).toEqual([
      'listMailboxes (GET /mailboxes) status 200: body is not valid UTF-8 JSON',
    ]);
  });

  it('flags a body that is not valid UTF-8', () => {
    const body = new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]); // ["\xff"]
    expect(new SpecValidator().validate(response({ body }))).toEqual([
      'listMailboxes (GET /mailboxes) status 200: body is not valid UTF-8 JSON',
    ]);
  });

  it('flags a JSON response served with another content type', () => {
    expect(new SpecValidator().validate(response({ contentType: 'text/plain' }))).toEqual([
      'listMailboxes (GET /mailboxes) status 200: expected Content-Type application/json, got text/plain',
    ]);
  });

  it('flags a JSON response served with no content type', () => {
    expect(new SpecValidator().validate(response({ contentType: null }))).toEqual([
      'listMailboxes (GET /mailboxes) status 200: expected Content-Type application/json, got none',
    ]);
  });

  it('flags a status the contract does not document for the operation', () => {
    expect(new SpecValidator().validate(response({ status: 418 }))).toEqual([
      'listMailboxes (GET /mailboxes) status 418: the contract documents no such status',
    ]);
  });

  it('flags a request to an operation the contract does not have', () => {
    expect(new SpecValidator().validate(response({ path: '/webhooks' }))).toEqual([
      'GET /webhooks is not an operation of the contract',
    ]);
  });

  it('accepts an empty 204 from DELETE /emails/{emailId}', () => {
    const deleted = response({
      method: 'DELETE',
      path: '/emails/abc',
      status: 204,
      contentType: null,
      body: new Uint8Array(),
    });
    expect(new SpecValidator().validate(deleted)).toEqual([]);
  });

  it('flags a 204 from DELETE /emails/{emailId} that carries a body', () => {
    const deleted = response({
      method: 'DELETE',
      path: '/emails/abc',
      status: 204,
      contentType: 'application/json',
      body: encoder.encode('{}'),
    });
    expect(new SpecValidator().validate(deleted)).toEqual([
      'deleteEmail (DELETE /emails/{emailId}) status 204: expected no body, got 2 bytes',
    ]);
  });

  it('treats a documented non-JSON download as opaque bytes', () => {
    const download = response({
      path: '/attachments/3f2b8c1e',
      contentType: 'application/pdf',
      body: encoder.encode('%PDF-1.7'),
    });
    expect(new SpecValidator().validate(download)).toEqual([]);
  });

  it('flags an error code the response does not list in x-error-codes', () => {
    const notFound = response({
      path: '/emails/abc',
      status: 404,
      body: json({ code: 'mailbox_not_found', message: 'No such mailbox.' }),
    });
    expect(new SpecValidator().validate(notFound)).toEqual([
      'getEmail (GET /emails/{emailId}) status 404: error code "mailbox_not_found" is not one the contract lists for this response (email_not_found)',
    ]);
  });

  it('accepts an error code the response lists in x-error-codes', () => {
    const notFound = response({
      path: '/emails/abc',
      status: 404,
      body: json({ code: 'email_not_found', message: 'No email abc.', field: 'emailId' }),
    });
    expect(new SpecValidator().validate(notFound)).toEqual([]);
  });

  it('checks error codes declared inline on the operation, not only behind a $ref', () => {
    const validator = new SpecValidator();
    const listed = response({
      path: '/emails',
      status: 404,
      body: json({ code: 'mailbox_not_found', message: 'No mailbox.' }),
    });
    const unlisted = response({
      path: '/emails',
      status: 404,
      body: json({ code: 'email_not_found', message: 'No email.' }),
    });
    expect(validator.validate(listed)).toEqual([]);
    expect(validator.validate(unlisted)).toEqual([
      'listEmails (GET /emails) status 404: error code "email_not_found" is not one the contract lists for this response (mailbox_not_found)',
    ]);
  });

  it('validates a body against a schema found under a templated path', () => {
    const email = response({ path: '/emails/abc', body: json({ id: 'abc' }) });
    const violations = new SpecValidator().validate(email);
    expect(violations).toContain(
      "getEmail (GET /emails/{emailId}) status 200: body must have required property 'mailbox'",
    );
    expect(violations).not.toContain(
      "getEmail (GET /emails/{emailId}) status 200: body must have required property 'id'",
    );
  });

  it('checks the inline x-error-codes of an operation under a templated path', () => {
    const validator = new SpecValidator();
    const reply = (code: string) =>
      response({
        method: 'POST',
        path: '/emails/abc/reply',
        status: 404,
        body: json({ code, message: 'Not found.' }),
      });
    expect(validator.validate(reply('attachment_not_found'))).toEqual([]);
    expect(validator.validate(reply('mailbox_not_found'))).toEqual([
      'replyToEmail (POST /emails/{emailId}/reply) status 404: error code "mailbox_not_found" is not one the contract lists for this response (email_not_found, attachment_not_found)',
    ]);
  });

  it('checks string formats such as email', () => {
    const body = json([{ address: 'not-an-address', domain: 'acme.test', displayName: null }]);
    expect(new SpecValidator().validate(response({ body }))).toEqual([
      'listMailboxes (GET /mailboxes) status 200: body/0/address must match format "email"',
    ]);
  });

  it('accepts a listed code on a 401 reached through a $ref to components/responses', () => {
    const unauthorized = response({
      status: 401,
      body: json({ code: 'invalid_api_key', message: 'The API key is not valid.' }),
    });
    expect(new SpecValidator().validate(unauthorized)).toEqual([]);
  });

  it('flags an unlisted code on a 401 reached through a $ref to components/responses', () => {
    const unauthorized = response({
      status: 401,
      body: json({ code: 'nope', message: 'The API key is not valid.' }),
    });
    expect(new SpecValidator().validate(unauthorized)).toEqual([
      'listMailboxes (GET /mailboxes) status 401: error code "nope" is not one the contract lists for this response (missing_api_key, invalid_api_key)',
    ]);
  });

  it('reports both a schema violation and an unlisted code of one error body', () => {
    const unauthorized = response({ status: 401, body: json({ code: 'nope' }) });
    expect(new SpecValidator().validate(unauthorized)).toEqual([
      "listMailboxes (GET /mailboxes) status 401: body must have required property 'message'",
      'listMailboxes (GET /mailboxes) status 401: error code "nope" is not one the contract lists for this response (missing_api_key, invalid_api_key)',
    ]);
  });
});
