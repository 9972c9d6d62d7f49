import { describe, expect, it } from 'vitest';
import { resolveBinding } from './binding.ts';
import { Dialect, defaultDialect } from './dialect.ts';

const graphLike = () =>
  new Dialect(
    resolveBinding(
      {
        binding: 1,
        name: 'graph-like',
        list: { array: 'value' },
        email: {
          senderAddress: 'from.emailAddress.address',
          senderName: 'from.emailAddress.name',
          toAddress: 'toRecipients[].emailAddress.address',
          toName: 'toRecipients[].emailAddress.name',
          read: 'isRead',
          folder: 'parentFolder',
          receivedAt: 'receivedDateTime',
        },
        update: { read: 'isRead', folder: 'parentFolder', starred: 'flagged' },
        forward: { recipient: 'toRecipients[].emailAddress.address' },
        send: { preheader: 'previewText' },
        operations: { sendEmail: { status: 202, answer: 'reference', emailId: 'body:/id' } },
        errors: {
          too_many_recipients: { status: 422, code: 'recipients_limit' },
          invalid_field: { status: 422, code: 'validation_error' },
          missing_field: { status: 422, code: 'validation_error' },
        },
        folders: {
          names: ['inbox', 'sentitems', 'archive', 'junkemail', 'trash'],
          sent: 'sentitems',
          received: 'inbox',
        },
      },
      'test',
    ),
  );

describe('the dialect between the checks and a target', () => {
  it('changes nothing under the default binding', () => {
    const dialect = defaultDialect();
    expect(dialect.isDefault).toBe(true);
    const body = { folder: 'archive', read: true };
    expect(dialect.requestJson('updateEmail', body)).toBe(body);
    expect(dialect.canonicalAnswer('listEmails', 200, { emails: [] })).toEqual({
      status: 200,
      json: { emails: [] },
    });
  });

  it('sends PATCH, forward and preheader fields and folder filters in the target’s names', () => {
    const dialect = graphLike();
    expect(
      dialect.requestJson('updateEmail', { folder: 'sent', read: true, starred: false }),
    ).toEqual({ parentFolder: 'sentitems', isRead: true, flagged: false });
    expect(dialect.requestJson('forwardEmail', { to: 'a@x.test', text: 'hi' })).toEqual({
      toRecipients: [{ emailAddress: { address: 'a@x.test' } }],
      text: 'hi',
    });
    expect(dialect.requestJson('sendEmail', { preheader: 'p', to: 'b@x.test' })).toEqual({
      previewText: 'p',
      to: 'b@x.test',
    });
    expect(dialect.requestQuery('listEmails', { folder: 'spam', mailbox: 'm' })).toEqual({
      folder: 'junkemail',
      mailbox: 'm',
    });
  });

  it('reads a page of Graph-like records back in the checks’ names, extra fields kept', () => {
    const dialect = graphLike();
    const answer = dialect.canonicalAnswer('listEmails', 200, {
      value: [
        {
          id: 'e1',
          parentFolder: 'sentitems',
          isRead: true,
          from: { emailAddress: { address: 'a@x.test', name: 'A' } },
          toRecipients: [
            { emailAddress: { address: 'b@x.test', name: null } },
            { emailAddress: { address: 'c@x.test', name: 'C' } },
          ],
          receivedDateTime: '2026-11-27T00:00:00.000Z',
          importance: 'normal',
        },
      ],
      nextCursor: null,
    });
    expect(answer).toEqual({
      status: 200,
      json: {
        emails: [
          {
            id: 'e1',
            folder: 'sent',
            read: true,
            from: { address: 'a@x.test', name: 'A' },
            to: [
              { address: 'b@x.test', name: null },
              { address: 'c@x.test', name: 'C' },
            ],
            receivedAt: '2026-11-27T00:00:00.000Z',
            importance: 'normal',
          },
        ],
        nextCursor: null,
      },
    });
  });

  it('maps an error back to its condition only when one condition has that answer', () => {
    const dialect = graphLike();
    expect(
      dialect.canonicalAnswer('sendEmail', 422, {
        code: 'recipients_limit',
        message: 'm',
        field: 'cc',
      }),
    ).toEqual({ status: 400, json: { code: 'too_many_recipients', message: 'm', field: 'cc' } });
    // Two conditions share 422 validation_error: which one is not for the dialect to guess.
    expect(
      dialect.canonicalAnswer('updateEmail', 422, {
        code: 'validation_error',
        message: 'm',
        field: 'isRead',
      }),
    ).toEqual({
      status: 422,
      json: { code: 'validation_error', message: 'm', field: 'read' },
    });
  });

  it('narrows an answer several conditions share to those the operation can meet', () => {
    const notFound = { status: 404, code: 'not_found' };
    const dialect = new Dialect(
      resolveBinding(
        {
          binding: 1,
          errors: {
            mailbox_not_found: notFound,
            email_not_found: notFound,
            attachment_not_found: notFound,
          },
        },
        'test',
      ),
      (id) => new Set(id === 'getEmail' ? ['email_not_found'] : []),
    );
    expect(dialect.canonicalAnswer('getEmail', 404, { code: 'not_found', message: 'm' })).toEqual({
      status: 404,
      json: { code: 'email_not_found', message: 'm' },
    });
    expect(
      dialect.canonicalAnswer('listEmails', 404, { code: 'not_found', message: 'm' }).json,
    ).toEqual({ code: 'not_found', message: 'm' });
  });

  it('gives the checks’ success status for the target’s, and leaves a departure as sent', () => {
    const dialect = graphLike();
    expect(dialect.canonicalAnswer('sendEmail', 202, { id: 'x', status: 'queued' }).status).toBe(
      201,
    );
    expect(dialect.canonicalAnswer('sendEmail', 200, { id: 'x' }).status).toBe(200);
    expect(dialect.created('sendEmail')).toEqual({
      status: 202,
      answer: 'reference',
      emailId: 'body:/id',
    });
  });
});
