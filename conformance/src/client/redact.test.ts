import { describe, expect, it } from 'vitest';
import { maskSecret, redactSecrets } from './redact.ts';

const KEY = 'sk-AbCdEfGhIjKl_0123456789abcdefghijklmnopqrstuv';
const WEBHOOK = 'whsec_Zz0123456789abcdefghijWXYZ';
const TOKEN = 'mt_q1w2e3r4t5y6u7i8o9p0-_AbCd';
const IN_PROCESS = 'conformance-0f8e2d4c-1b3a-4c5d-8e7f-9a0b1c2d3e4f';

describe('redactSecrets', () => {
  it('cuts API keys, webhook secrets and control tokens to their prefix and last four', () => {
    expect(redactSecrets(`key ${KEY}, hook ${WEBHOOK}, token ${TOKEN}, ${IN_PROCESS}`)).toBe(
      'key sk-…stuv, hook whsec_…WXYZ, token mt_…AbCd, conformance-…3e4f',
    );
  });

  it('finds them in URLs, JSON, headers and at the end of a sentence', () => {
    expect(redactSecrets(`/mailboxes?api_key=${KEY}&x=1`)).toBe('/mailboxes?api_key=sk-…stuv&x=1');
    expect(redactSecrets(`{"secret":"${WEBHOOK}"}`)).toBe('{"secret":"whsec_…WXYZ"}');
    expect(redactSecrets(`Authorization: Bearer ${TOKEN}`)).toBe('Authorization: Bearer mt_…AbCd');
    expect(redactSecrets(`the key ${KEY}.`)).toBe('the key sk-…stuv.');
  });

  it('keeps nothing of a short secret but its prefix', () => {
    expect(redactSecrets('--api-key sk-wrongkey')).toBe('--api-key sk-…');
    expect(maskSecret('sk-nope', 'sk-')).toBe('sk-…');
  });

  it('masks a secret of any shape the run was given, longest first', () => {
    const given = 'vendor-key-1234567890';
    expect(redactSecrets(`key=${given}; prefix=${given.slice(0, 10)}`, [given])).toBe(
      'key=…7890; prefix=vendor-key',
    );
    expect(redactSecrets(`a ${given}X`, [given.slice(0, 12), given])).toBe('a …7890X');
  });

  it('leaves a short given secret, which would blank out ordinary words, to exchange rendering', () => {
    expect(redactSecrets('a test of box@acme.test', ['test'])).toBe('a test of box@acme.test');
  });

  it('leaves words that only look alike, and masked text, unchanged', () => {
    const text =
      'task-force desk-top sk- sk-… mt_ a_mt_x whsec_ conformance-report mailtwin-conformance sk-…stuv';
    expect(redactSecrets(text)).toBe(text);
    expect(redactSecrets(redactSecrets(KEY))).toBe(redactSecrets(KEY));
  });
});
