import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentedContract, marksOf, resolvePointer, type Json } from './documented-contract.ts';
import { loadRules } from './rules.ts';
import type { ResponseToValidate } from './response-findings.ts';
import { SpecValidator } from './spec-validator.ts';
import { packagePath } from '../../../emulator/src/package-root.ts';

const encoder = new TextEncoder();
const json = (value: unknown) => encoder.encode(JSON.stringify(value));

const DETAIL = {
  id: '01JD8Z3Q4T5V6W7X8Y9Z0A1B2C',
  mailbox: 'billing@acme.test',
  folder: 'inbox',
  read: false,
  starred: false,
  from: { address: 'accounts@harbor-offices.test', name: 'Harbor Offices Accounts' },
  to: [{ address: 'billing@acme.test', name: null }],
  cc: [],
  subject: 'Rent',
  snippet: 'Dear tenant',
  attachmentCount: 0,
  receivedAt: '2026-11-19T07:15:00.000Z',
  bcc: [],
  replyTo: [],
  sentAt: null,
  messageId: '<a@acme.test>',
  inReplyTo: null,
  references: [],
  text: 'Dear tenant',
  html: null,
  preheader: null,
  attachments: [],
};

const UPLOAD = {
  id: '3f2b8c1e-9d4a-4e7b-a1c2-5d6e7f8a9b0c',
  name: 'a.csv',
  contentType: 'text/csv',
  size: 60,
  url: 'https://mail.example.com/content/attachments/Zq3k9V0mXoYt2cH8uJ5wRb1nLs7eP4dA/a.csv',
};

function answer(
  method: string,
  path: string,
  status: number,
  body?: unknown,
  contentType: string | null = 'application/json',
): ResponseToValidate {
  return {
    method,
    path,
    status,
    contentType: body === undefined ? null : contentType,
    body: body === undefined ? new Uint8Array() : json(body),
  };
}

let validator: SpecValidator;
beforeAll(() => {
  validator = new SpecValidator();
});

describe('documentedContract: the documented layer of spec/openapi.yaml', () => {
  let doc: Json;
  beforeAll(() => {
    doc = validator.documented;
  });
  const at = (pointer: string) => resolvePointer(doc, pointer) as Json;

  it('widens the decided folder enum to a string', () => {
    expect(at('/components/schemas/Folder')).toMatchObject({ type: 'string' });
    expect(at('/components/schemas/Folder').enum).toBeUndefined();
  });

  it('opens closed request objects (D-31)', () => {
    expect(at('/components/schemas/SendEmailRequest').additionalProperties).toBeUndefined();
    expect(at('/components/schemas/UpdateEmailRequest').additionalProperties).toBeUndefined();
  });

  it('accepts any value for decided records and drops decided properties from required', () => {
    expect(at('/components/schemas/EmailDetail')).toEqual({
      'x-decided': 'D-4',
      description: expect.any(String),
    });
    expect(at('/components/schemas/EmailList').required).toEqual(['nextCursor']);
    expect(at('/components/schemas/Attachment').required).toEqual([
      'id',
      'name',
      'contentType',
      'size',
      'url',
    ]);
  });

  it('folds decided statuses into their class and keeps documented ones exact', () => {
    const send = at('/paths/~1emails~1send/post/responses');
    expect(Object.keys(send).sort()).toEqual(['2XX', '4XX', '5XX']);
    expect(send['2XX']).toMatchObject({ 'x-decided': ['D-21'] });
    const remove = at('/paths/~1emails~1{emailId}/delete/responses');
    expect(Object.keys(remove).sort()).toEqual(['204', '4XX', '5XX']);
    expect(JSON.stringify(doc.paths)).not.toContain('x-error-codes');
  });

  it('keeps the documented Error shape of section 7 but not the decided code pattern', () => {
    expect(at('/components/schemas/Error').required).toEqual(['code', 'message']);
    expect(at('/components/schemas/Error/properties/code').pattern).toBeUndefined();
  });

  it('leaves the whole contract it was derived from unchanged', () => {
    expect(
      (resolvePointer(validator.spec, '/components/schemas/Folder') as Json).enum,
    ).toHaveLength(5);
  });
});

describe('SpecValidator.judge: which layer a response breaks, charged to one rule', () => {
  it('passes a response that conforms to both layers', () => {
    expect(validator.judge(answer('GET', '/emails/abc', 200, DETAIL))).toEqual({ violations: [] });
  });

  it('charges a folder outside the decided set to D-5: it passes the documented layer', () => {
    const judgement = validator.judge(
      answer('GET', '/emails/abc', 200, { ...DETAIL, folder: 'Archive/2026' }),
    );
    expect(judgement.charge).toEqual({ ruleId: 'D-5', layer: 'decided' });
    expect(judgement.violations).toEqual([
      'getEmail (GET /emails/{emailId}) status 200: body/folder must be equal to one of the allowed values [decided: D-5]',
    ]);
  });

  it('charges a 200 instead of 201 on send to D-21', () => {
    const judgement = validator.judge(answer('POST', '/emails/send', 200, DETAIL));
    expect(judgement.charge).toEqual({ ruleId: 'D-21', layer: 'decided' });
    expect(judgement.violations[0]).toContain('status 200: the contract documents no such status');
  });

  it('charges another error status (422 for a bad parameter) to D-12', () => {
    const judgement = validator.judge(
      answer('GET', '/emails', 422, { code: 'invalid_field', message: 'Bad limit.' }),
    );
    expect(judgement.charge).toEqual({ ruleId: 'D-12', layer: 'decided' });
  });

  it('charges another error code to the decided row of its response (D-29 for 401)', () => {
    const judgement = validator.judge(
      answer('GET', '/mailboxes', 401, { code: 'unauthorized', message: 'No key.' }),
    );
    expect(judgement.charge).toEqual({ ruleId: 'D-29', layer: 'decided' });
  });

  it('charges a missing D-4 field to D-4, in a sent copy as in a read email', () => {
    const { bcc: _bcc, ...withoutBcc } = DETAIL;
    expect(validator.judge(answer('POST', '/emails/send', 201, withoutBcc)).charge).toEqual({
      ruleId: 'D-4',
      layer: 'decided',
    });
    expect(validator.judge(answer('GET', '/emails/abc', 200, withoutBcc)).charge).toEqual({
      ruleId: 'D-4',
      layer: 'decided',
    });
  });

  it('charges an address outside the decided syntax to D-11', () => {
    const body = { ...DETAIL, from: { address: 'no at sign', name: null } };
    expect(validator.judge(answer('GET', '/emails/abc', 200, body)).charge).toEqual({
      ruleId: 'D-11',
      layer: 'decided',
    });
  });

  it('fails a missing documented field of the upload result on its rule (2.4-R3 for url)', () => {
    const { url: _url, ...withoutUrl } = UPLOAD;
    const judgement = validator.judge(answer('POST', '/attachments', 201, withoutUrl));
    expect(judgement.charge).toEqual({ ruleId: '2.4-R3', layer: 'documented' });
    expect(judgement.violations).toEqual([
      "uploadAttachment (POST /attachments) status 201: body must have required property 'url' [documented: 2.4-R3]",
    ]);
  });

  it('fails a page without nextCursor on 4.2-R13, but not one whose array has another name', () => {
    expect(validator.judge(answer('GET', '/emails', 200, { emails: [] })).charge).toEqual({
      ruleId: '4.2-R13',
      layer: 'documented',
    });
    expect(
      validator.judge(answer('GET', '/emails', 200, { items: [], nextCursor: null })).charge,
    ).toEqual({ ruleId: 'D-6', layer: 'decided' });
  });

  it('fails an error body without a message on 7-R1, whatever its status', () => {
    for (const status of [400, 418, 503]) {
      expect(validator.judge(answer('POST', '/emails/send', status, { code: 'x' })).charge).toEqual(
        { ruleId: '7-R1', layer: 'documented' },
      );
    }
  });

  it('fails a DELETE answered 200, or 204 with a body, on 4.6-R1', () => {
    expect(validator.judge(answer('DELETE', '/emails/abc', 200, DETAIL)).charge).toEqual({
      ruleId: '4.6-R1',
      layer: 'documented',
    });
    expect(validator.judge(answer('DELETE', '/emails/abc', 204, { ok: true })).charge).toEqual({
      ruleId: '4.6-R1',
      layer: 'documented',
    });
  });

  it('fails a redirect on send on 4-R2 and a path of no operation on 4-R3', () => {
    expect(validator.judge(answer('POST', '/emails/send', 302)).charge).toEqual({
      ruleId: '4-R2',
      layer: 'documented',
    });
    expect(validator.judge(answer('GET', '/webhooks', 200, [])).charge).toEqual({
      ruleId: '4-R3',
      layer: 'documented',
    });
  });

  it('lists the decided violations too when a documented one fails', () => {
    const judgement = validator.judge(answer('GET', '/mailboxes', 401, { code: 'unauthorized' }));
    expect(judgement.charge).toEqual({ ruleId: '7-R1', layer: 'documented' });
    expect(judgement.violations).toEqual([
      "listMailboxes (GET /mailboxes) status 401: body must have required property 'message' [documented: 7-R1]",
      'listMailboxes (GET /mailboxes) status 401: error code "unauthorized" is not one the contract lists for this response (missing_api_key, invalid_api_key) [decided: D-29]',
    ]);
  });
});

describe('documentedContract on a contract of its own', () => {
  const spec: Json = {
    openapi: '3.1.0',
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          responses: {
            '200': {
              'x-documented': '9-R1',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['kind', 'label'],
                    'x-decided': { additionalProperties: 'D-31' },
                    additionalProperties: false,
                    properties: {
                      kind: { type: 'string', 'x-decided': { enum: 'D-5' }, enum: ['a', 'b'] },
                      label: { type: 'string', 'x-decided': 'D-3' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
  const rules = new Set(['9-R1', 'D-31', 'D-5']);
  const own = new SpecValidator(spec, (id) => rules.has(id));
  const thing = (body: unknown) => answer('GET', '/things', 200, body);

  it('charges an extra field in a closed response object to the D-rule that closed it', () => {
    expect(own.judge(thing({ kind: 'a', label: 'x', extra: 1 })).charge).toEqual({
      ruleId: 'D-31',
      layer: 'decided',
    });
  });

  it('charges a missing decided property to its own row when no asserted rule carries it', () => {
    expect(own.judge(thing({ kind: 'a' })).charge).toEqual({ ruleId: 'D-3', layer: 'decided' });
  });

  it('fails a documented requirement of a relaxed schema on the response rule', () => {
    expect(own.judge(thing({ label: 'x' })).charge).toEqual({
      ruleId: '9-R1',
      layer: 'documented',
    });
    expect(own.judge(thing({ kind: 7, label: 'x' })).charge).toEqual({
      ruleId: '9-R1',
      layer: 'documented',
    });
    expect(own.judge(thing({ kind: 'c', label: 'x' })).charge).toEqual({
      ruleId: 'D-5',
      layer: 'decided',
    });
  });

  it('derives without touching the input', () => {
    const before = JSON.stringify(spec);
    documentedContract(spec);
    expect(JSON.stringify(spec)).toBe(before);
  });
});

describe('the marks of spec/openapi.yaml', () => {
  const decisions = readFileSync(packagePath('spec/DECISIONS.md'), 'utf8');
  const documentedRules = new Set(
    loadRules()
      .filter((r) => r.source === 'documented')
      .map((r) => r.id),
  );

  function everyMark(node: unknown, pointer = ''): { pointer: string; node: Json }[] {
    if (Array.isArray(node)) return node.flatMap((c, i) => everyMark(c, `${pointer}/${i}`));
    if (typeof node !== 'object' || node === null) return [];
    const here =
      'x-decided' in node || 'x-documented' in node ? [{ pointer, node: node as Json }] : [];
    return [
      ...here,
      ...Object.entries(node).flatMap(([k, c]) =>
        k === 'x-decided' ? [] : everyMark(c, `${pointer}/${k}`),
      ),
    ];
  }

  it('cites only rows of spec/DECISIONS.md and documented rules of conformance/rules.yaml', () => {
    const marks = everyMark(validator.spec);
    expect(marks.length).toBeGreaterThan(50);
    const problems: string[] = [];
    for (const { pointer, node } of marks) {
      const m = marksOf(node);
      for (const row of [...m.decided, ...Object.values(m.decidedKeywords).flat()]) {
        if (!decisions.includes(`| ${row} |`)) problems.push(`${pointer}: ${row} is no decision`);
      }
      for (const id of m.documented) {
        if (!documentedRules.has(id)) problems.push(`${pointer}: ${id} is no documented rule`);
      }
    }
    expect(problems).toEqual([]);
  });
});
