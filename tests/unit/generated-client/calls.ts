// A client program as a user writes it (issue 27 item 9): types generated from the served
// /openapi/openapi.json by openapi-typescript with its default settings, and openapi-fetch.
// It calls every operation of the API with no cast (`as`), no `any` and no `@ts-` comment;
// tests/unit/generated-client.test.ts generates ./out/api.d.ts, type-checks this file with
// `tsc --noEmit` (strict) and runs it against the emulator with the demo data. The folder is
// left out of the project's own tsconfig: ./out exists only while that test runs.
import createClient from 'openapi-fetch';
import type { paths } from './out/api.js';

/** What one call answered: its operationId and status. */
export interface Call {
  operationId: string;
  status: number;
}

/** The value, or an error naming what was missing (narrows without a cast). */
function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what}: no data`);
  return value;
}

/**
 * Calls every operation once, with the demo data's mailboxes (fixtures/demo.json), in an order
 * where each call can use what the earlier ones returned: the upload is attached to the send,
 * the sent copy is read, updated, replied to and forwarded, and finally deleted.
 */
export async function callEveryOperation(options: {
  baseUrl: string;
  apiKey: string;
  fetch?: (request: Request) => Promise<Response>;
}): Promise<Call[]> {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const calls: Call[] = [];
  const record = (operationId: string, response: Response) =>
    calls.push({ operationId, status: response.status });

  const mailboxes = await client.GET('/mailboxes');
  record('listMailboxes', mailboxes.response);
  const billing = must(mailboxes.data, 'listMailboxes').find((m) =>
    m.address.startsWith('billing@'),
  );
  const mailbox: string = must(billing, 'a billing mailbox').address;

  const page = await client.GET('/emails', {
    params: { query: { mailbox, folder: 'inbox', read: false, limit: 5 } },
  });
  record('listEmails', page.response);
  const nextCursor: string | null = must(page.data, 'listEmails').nextCursor;
  void nextCursor;

  // The file part: a File (a Blob) as it is, put in a FormData by the body serializer.
  const file = new File(['invoice,amount_eur\nHO-2026-12-4B,3224.90\n'], 'remittance.csv', {
    type: 'text/csv',
  });
  const uploaded = await client.POST('/attachments', {
    body: { file },
    bodySerializer: () => {
      const form = new FormData();
      form.append('file', file);
      return form;
    },
  });
  record('uploadAttachment', uploaded.response);
  const uploadId: string = must(uploaded.data, 'uploadAttachment').id;

  const downloaded = await client.GET('/attachments/{attachmentId}', {
    params: { path: { attachmentId: uploadId } },
    parseAs: 'text',
  });
  record('downloadAttachment', downloaded.response);
  if (must(downloaded.data, 'downloadAttachment') !== (await file.text())) {
    throw new Error('downloadAttachment: the bytes differ from the upload');
  }

  const sent = await client.POST('/emails/send', {
    body: {
      from: `Acme Billing <${mailbox}>`,
      to: 'maria.lopez@acme.test',
      subject: 'Remittance {{invoice}}',
      markdown: 'Invoice **{{invoice}}** is paid.',
      variables: { invoice: 'HO-2026-12-4B' },
      attachmentIds: [uploadId],
    },
  });
  record('sendEmail', sent.response);
  const emailId: string = must(sent.data, 'sendEmail').id;

  const read = await client.GET('/emails/{emailId}', { params: { path: { emailId } } });
  record('getEmail', read.response);
  const [attachment] = must(read.data, 'getEmail').attachments;
  if (attachment?.name !== file.name) throw new Error('getEmail: the attachment is not listed');

  const updated = await client.PATCH('/emails/{emailId}', {
    params: { path: { emailId } },
    body: { starred: true },
  });
  record('updateEmail', updated.response);

  // replyAll left out: it is optional (false when omitted, §4.7).
  const replied = await client.POST('/emails/{emailId}/reply', {
    params: { path: { emailId } },
    body: { text: 'Thanks, noted.', attachmentIds: [uploadId] },
  });
  record('replyToEmail', replied.response);

  const forwarded = await client.POST('/emails/{emailId}/forward', {
    params: { path: { emailId } },
    body: { to: 'support@acme.test' },
  });
  record('forwardEmail', forwarded.response);

  const deleted = await client.DELETE('/emails/{emailId}', { params: { path: { emailId } } });
  record('deleteEmail', deleted.response);
  return calls;
}
