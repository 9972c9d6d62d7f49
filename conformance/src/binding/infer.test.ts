import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONTRACT_PATH } from '../contract/spec-validator.ts';
import { defaultBinding } from './binding.ts';
import { inferBinding } from './infer.ts';

type Json = Record<string, any>;
const contract = () => parse(readFileSync(CONTRACT_PATH, 'utf8')) as Json;

function rename(object: Json, from: string, to: string): void {
  const entries = Object.entries(object).map(([k, v]) => [k === from ? to : k, v] as const);
  for (const key of Object.keys(object)) delete object[key];
  Object.assign(object, Object.fromEntries(entries));
}

describe('inferring a binding from a published OpenAPI document', () => {
  it("infers mailtwin's own document as the default binding, every entry sourced in it", () => {
    const { binding, sources, ambiguous } = inferBinding(contract());
    expect(ambiguous).toEqual([]);
    expect({ ...binding, name: '' }).toEqual({ ...defaultBinding(), name: '' });
    expect(Object.values(sources).filter((s) => !s.startsWith('#/'))).toEqual([]);
    expect(sources['/list/array']).toBe('#/components/schemas/EmailList/properties/emails');
  });

  it('follows a renamed list array, PATCH fields, and the record fields they anchor', () => {
    const doc = contract();
    const schemas = doc.components.schemas;
    rename(schemas.EmailList.properties, 'emails', 'data');
    schemas.EmailList.required = ['data', 'nextCursor'];
    rename(schemas.UpdateEmailRequest.properties, 'read', 'seen');
    rename(schemas.EmailSummary.properties, 'read', 'seen');
    rename(schemas.UpdateEmailRequest.properties, 'starred', 'flagged');
    rename(schemas.EmailSummary.properties, 'starred', 'flagged');
    const { binding, sources, ambiguous } = inferBinding(doc);
    expect(ambiguous).toEqual([]);
    expect(binding.list.array).toBe('data');
    expect(binding.update).toEqual({ folder: 'folder', read: 'seen', starred: 'flagged' });
    expect(binding.email.read).toBe('seen');
    expect(binding.email.starred).toBe('flagged');
    expect(sources['/update/read']).toBe('#/components/schemas/UpdateEmailRequest/properties/seen');
  });

  it('reads a Graph-like sender and recipients nested in emailAddress objects', () => {
    const doc = contract();
    const schemas = doc.components.schemas;
    const graphAddress = {
      type: 'object',
      properties: {
        emailAddress: {
          type: 'object',
          properties: { address: { type: 'string' }, name: { type: 'string' } },
        },
      },
    };
    schemas.GraphAddress = graphAddress;
    rename(schemas.EmailSummary.properties, 'to', 'toRecipients');
    schemas.EmailSummary.properties.toRecipients = {
      type: 'array',
      items: { $ref: '#/components/schemas/GraphAddress' },
    };
    schemas.EmailSummary.properties.from = { $ref: '#/components/schemas/GraphAddress' };
    const { binding, ambiguous } = inferBinding(doc);
    expect(ambiguous).toEqual([]);
    expect(binding.email.senderAddress).toBe('from.emailAddress.address');
    expect(binding.email.senderName).toBe('from.emailAddress.name');
    expect(binding.email.toAddress).toBe('toRecipients[].emailAddress.address');
  });

  it('reports two candidate arrays for the list with both, and guesses neither', () => {
    const doc = contract();
    const list = doc.components.schemas.EmailList;
    rename(list.properties, 'emails', 'items');
    list.properties.results = list.properties.items;
    const { binding, ambiguous } = inferBinding(doc);
    expect(ambiguous.map((a) => a.entry)).toContain('/list/array');
    expect(ambiguous.find((a) => a.entry === '/list/array')!.candidates.join(' ')).toMatch(
      /items .*results/,
    );
    expect(binding.list.array).toBe('emails');
  });

  it('takes each operation’s declared success and a 202 answer that only names the email', () => {
    const doc = contract();
    const send = doc.paths['/emails/send'].post;
    send.responses['202'] = {
      description: 'Accepted',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { id: { type: 'string' }, status: { type: 'string' } },
          },
        },
      },
    };
    delete send.responses['201'];
    const { binding } = inferBinding(doc);
    expect(binding.operations.sendEmail).toEqual({
      status: 202,
      answer: 'reference',
      emailId: 'body:/id',
    });
    expect(binding.operations.replyToEmail.status).toBe(201);
  });

  it('moves an error condition to the status its code is declared under', () => {
    const doc = contract();
    const drop = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(drop);
      if (typeof node !== 'object' || node === null) return;
      const codes = (node as Json)['x-error-codes'];
      if (Array.isArray(codes))
        (node as Json)['x-error-codes'] = codes.filter((c) => c !== 'too_many_recipients');
      for (const [key, value] of Object.entries(node))
        if ((value as Json | null)?.value?.code === 'too_many_recipients')
          delete (node as Json)[key];
        else drop(value);
    };
    drop(doc);
    for (const path of ['/emails/send', '/emails/{emailId}/reply', '/emails/{emailId}/forward'])
      doc.paths[path].post.responses['422'] = {
        description: 'Refused',
        'x-error-codes': ['recipient_suppressed', 'recipients_limit'],
      };
    const { binding, ambiguous } = inferBinding(doc);
    expect(ambiguous.filter((a) => a.entry.startsWith('/errors/'))).toEqual([]);
    expect(binding.errors.too_many_recipients).toEqual({ status: 422, code: 'recipients_limit' });
  });

  it('takes the folder names from the PATCH folder enum, and the sent folder among them', () => {
    const doc = contract();
    doc.components.schemas.Folder.enum = ['inbox', 'sentitems', 'archive', 'junkemail', 'trash'];
    const { binding } = inferBinding(doc);
    expect(binding.folders).toEqual({
      names: ['inbox', 'sentitems', 'archive', 'junkemail', 'trash'],
      sent: 'sentitems',
      received: 'inbox',
    });
  });

  it("reports a webhook data field it cannot find by name, with data's unexplained properties", () => {
    const doc = contract();
    const properties = { ...doc.components.schemas.EmailSummary.properties };
    properties.copies = properties.cc;
    delete properties.cc;
    doc.components.schemas.EmailReceivedEvent.properties.data = { type: 'object', properties };
    const { ambiguous } = inferBinding(doc);
    const cc = ambiguous.find((a) => a.entry === '/webhookData/ccAddress');
    expect(cc?.candidates.join(' ')).toMatch(/^copies \(/);
  });

  it('refuses something that is not an OpenAPI document', () => {
    expect(() => inferBinding({ hello: 1 })).toThrow(/no `paths` object/);
  });
});
