// The receiver-side verifier `mailtwin/webhooks` (§6.3, D-36), imported by its package name as an
// installed user would. Every vector of fixtures/webhook-vectors.json is checked twice: by
// verifyWebhook, and, where the verdict depends on the HMAC, by the openssl command, so the
// vectors do not merely agree with the code that made them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_TOLERANCE_SECONDS,
  WEBHOOK_ERROR_CODES,
  WebhookVerificationError,
  verifyWebhook,
  type HeaderRecord,
  type VerifyWebhookOptions,
  type WebhookVerificationErrorCode,
} from 'mailtwin/webhooks';
import { signatureFor } from '../../emulator/src/webhook-delivery/signature.ts';

interface Vector {
  name: string;
  description: string;
  secret: string;
  timestamp: string;
  rawBody: string;
  rawBodyBase64?: string;
  signatureHeader: string | null;
  webhookIdHeader: string;
  now: string;
  toleranceSeconds: number;
  expected: 'valid' | WebhookVerificationErrorCode;
}

const { vectors } = JSON.parse(
  readFileSync(new URL('../../fixtures/webhook-vectors.json', import.meta.url), 'utf8'),
) as { vectors: Vector[] };

/** The exact bytes of a vector's body: rawBodyBase64 when present (binary-exact), else UTF-8. */
function bodyBytes(v: Vector): Buffer {
  return v.rawBodyBase64 === undefined
    ? Buffer.from(v.rawBody, 'utf8')
    : Buffer.from(v.rawBodyBase64, 'base64');
}

function vectorHeaders(v: Vector): HeaderRecord {
  return {
    'x-service-timestamp': v.timestamp,
    'x-service-webhook-id': v.webhookIdHeader,
    ...(v.signatureHeader === null ? {} : { 'x-service-signature': v.signatureHeader }),
  };
}

/** The verdict as a string: 'valid', or the error code; any other exception propagates. */
function verdict(options: VerifyWebhookOptions): string {
  try {
    verifyWebhook(options);
    return 'valid';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
}

function verifyVector(v: Vector): string {
  return verdict({
    secret: v.secret,
    headers: vectorHeaders(v),
    rawBody: bodyBytes(v),
    toleranceSeconds: v.toleranceSeconds,
    now: new Date(v.now),
  });
}

/** Lowercase hex HMAC-SHA256 by the openssl command; the input goes on stdin, never a shell. */
function opensslHmacHex(secret: string, input: Buffer): string {
  let out: string;
  try {
    out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], {
      input,
      encoding: 'utf8',
    });
  } catch (error) {
    throw new Error(
      `the openssl command is needed for the independent HMAC check (Debian: apt-get install -y openssl): ${String(error)}`,
    );
  }
  const match = /([0-9a-f]{64})\s*$/.exec(out);
  if (match?.[1] === undefined) throw new Error(`unexpected openssl output: ${out}`);
  return match[1];
}

/** Verdicts decided before any HMAC is computed; every other one needs a matching signature. */
const DECIDED_BEFORE_HMAC = new Set([
  'missing_header',
  'malformed_signature',
  'malformed_timestamp',
]);

// A well-formed delivery built in the test, for the behaviour tests below.
const SECRET = 'whsec_test_5k3jQ9vR2mXc8LpN';
const WEBHOOK_ID = 'wh_01JD8Z7R2M3N4P5Q6R7S8T9V0W';
const TIMESTAMP = '2026-11-20T09:15:01.250Z';
const NOW = new Date('2026-11-20T09:15:02.000Z');

function envelope(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event: 'email.received',
    webhookId: WEBHOOK_ID,
    timestamp: TIMESTAMP,
    data: { id: '01JD8Z3Q4T5V6W7X8Y9Z0A1B2C', mailbox: 'alice@acme.test' },
    ...overrides,
  };
}

/** Options for a correctly signed delivery of `rawBody`; `headers` replaces single headers. */
function signed(
  rawBody: string | Uint8Array = JSON.stringify(envelope()),
  headers: Record<string, string | string[] | undefined> = {},
): VerifyWebhookOptions {
  return {
    secret: SECRET,
    rawBody,
    now: NOW,
    headers: {
      'x-service-event': 'email.received',
      'x-service-webhook-id': WEBHOOK_ID,
      'x-service-timestamp': TIMESTAMP,
      'x-service-signature': signatureFor(SECRET, TIMESTAMP, rawBody),
      ...headers,
    },
  };
}

function errorOf(options: VerifyWebhookOptions): WebhookVerificationError {
  try {
    verifyWebhook(options);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('expected a WebhookVerificationError, but the delivery verified');
}

describe('fixtures/webhook-vectors.json', () => {
  it('has at least 12 vectors with unique names, covering every error code', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(12);
    expect(new Set(vectors.map((v) => v.name)).size).toBe(vectors.length);
    const verdicts = new Set(vectors.map((v) => v.expected));
    for (const code of WEBHOOK_ERROR_CODES) expect(verdicts).toContain(code);
    expect(verdicts).toContain('valid');
  });

  it.each(vectors.map((v) => [v.name, v] as const))('verifyWebhook: %s', (_name, v) => {
    expect(verifyVector(v)).toBe(v.expected);
  });

  const hmacDependent = vectors.filter((v) => !DECIDED_BEFORE_HMAC.has(v.expected));
  it.each(hmacDependent.map((v) => [v.name, v] as const))(
    'openssl agrees on the signature of %s',
    (_name, v) => {
      const input = Buffer.concat([Buffer.from(`${v.timestamp}.`, 'utf8'), bodyBytes(v)]);
      const header = `sha256=${opensslHmacHex(v.secret, input)}`;
      if (v.expected === 'signature_mismatch') expect(v.signatureHeader).not.toBe(header);
      else expect(v.signatureHeader).toBe(header);
    },
  );

  it('uppercase-hex-digest holds the right digest, refused only for its case (D-36)', () => {
    const v = vectors.find((x) => x.name === 'uppercase-hex-digest');
    if (v === undefined) throw new Error('vector uppercase-hex-digest is missing');
    const input = Buffer.concat([Buffer.from(`${v.timestamp}.`, 'utf8'), bodyBytes(v)]);
    expect(v.signatureHeader).toBe(`sha256=${opensslHmacHex(v.secret, input).toUpperCase()}`);
  });

  it('the emulator signer reproduces the signature of every valid vector', () => {
    for (const v of vectors.filter((x) => x.expected === 'valid')) {
      expect(signatureFor(v.secret, v.timestamp, bodyBytes(v)), v.name).toBe(v.signatureHeader);
    }
  });
});

describe('verifyWebhook', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('returns the event, webhook id, timestamp and parsed payload of a signed delivery', () => {
    const result = verifyWebhook(signed());
    expect(result).toEqual({
      event: 'email.received',
      webhookId: WEBHOOK_ID,
      timestamp: TIMESTAMP,
      payload: envelope(),
    });
  });

  it('uses a 300 s window when none is given', () => {
    expect(DEFAULT_TOLERANCE_SECONDS).toBe(300);
    const at = (offsetMs: number) => ({
      ...signed(),
      now: new Date(Date.parse(TIMESTAMP) + offsetMs),
    });
    expect(verdict(at(300_000))).toBe('valid');
    expect(verdict(at(300_001))).toBe('timestamp_outside_tolerance');
    expect(verdict(at(-300_001))).toBe('timestamp_outside_tolerance');
  });

  it('checks against the real clock when now is not given', () => {
    const timestamp = new Date().toISOString();
    const rawBody = JSON.stringify(envelope({ timestamp }));
    const options = signed(rawBody, {
      'x-service-timestamp': timestamp,
      'x-service-signature': signatureFor(SECRET, timestamp, rawBody),
    });
    delete options.now;
    expect(verifyWebhook(options).timestamp).toBe(timestamp);
  });

  it.each(['x-service-signature', 'x-service-timestamp', 'x-service-webhook-id'])(
    'refuses a delivery without %s with missing_header naming it',
    (name) => {
      const error = errorOf(signed(undefined, { [name]: undefined }));
      expect(error.code).toBe('missing_header');
      expect(error.header).toBe(name);
    },
  );

  it('treats an empty header value as missing', () => {
    expect(errorOf(signed(undefined, { 'x-service-signature': '' })).code).toBe('missing_header');
  });

  it('accepts a delivery without X-Service-Event, taking the event from the signed body', () => {
    expect(verifyWebhook(signed(undefined, { 'x-service-event': undefined })).event).toBe(
      'email.received',
    );
  });

  it.each([
    ['an uppercase hex digest', (sig: string) => sig.toUpperCase().replace('SHA256=', 'sha256=')],
    ['an uppercase algorithm name', (sig: string) => sig.replace('sha256=', 'SHA256=')],
    ['another algorithm', (sig: string) => sig.replace('sha256=', 'sha512=')],
    ['a space after the equals sign', (sig: string) => sig.replace('=', '= ')],
    ['two signatures joined', (sig: string) => `${sig}, ${sig}`],
    [
      'a base64 digest',
      (sig: string) => `sha256=${Buffer.from(sig.slice(7), 'hex').toString('base64')}`,
    ],
  ])('refuses %s with malformed_signature', (_what, mangle) => {
    const options = signed();
    const headers = options.headers as Record<string, string>;
    const error = errorOf({
      ...options,
      headers: { ...headers, 'x-service-signature': mangle(headers['x-service-signature'] ?? '') },
    });
    expect(error.code).toBe('malformed_signature');
    expect(error.header).toBe('x-service-signature');
  });

  it('says why an uppercase digest is malformed', () => {
    const options = signed();
    const sig = (options.headers as Record<string, string>)['x-service-signature'] ?? '';
    const error = errorOf(
      signed(undefined, { 'x-service-signature': `sha256=${sig.slice(7).toUpperCase()}` }),
    );
    expect(error.message).toMatch(/lowercase \(D-36\)/);
  });

  it('refuses a signature under another secret with signature_mismatch', () => {
    const options = signed();
    expect(errorOf({ ...options, secret: 'whsec_another_secret' }).code).toBe('signature_mismatch');
  });

  it('refuses a secret without its whsec_ prefix as a programming error', () => {
    expect(() => verifyWebhook({ ...signed(), secret: SECRET.slice(6) })).toThrow(TypeError);
    expect(() => verifyWebhook({ ...signed(), secret: SECRET.slice(6) })).toThrow(/whsec_/);
  });

  it.each([
    ['without milliseconds', '2026-11-20T09:15:01Z'],
    ['with microseconds', '2026-11-20T09:15:01.250000Z'],
    ['with an offset', '2026-11-20T10:15:01.250+01:00'],
    ['in lowercase', '2026-11-20t09:15:01.250z'],
    ['on a day that does not exist', '2026-02-30T09:15:01.250Z'],
    ['at hour 24', '2026-11-20T24:15:01.250Z'],
    ['as epoch seconds', '1795166101'],
  ])('refuses a timestamp %s with malformed_timestamp', (_what, timestamp) => {
    const rawBody = JSON.stringify(envelope({ timestamp }));
    const error = errorOf(
      signed(rawBody, {
        'x-service-timestamp': timestamp,
        'x-service-signature': signatureFor(SECRET, timestamp, rawBody),
      }),
    );
    expect(error.code).toBe('malformed_timestamp');
    expect(error.header).toBe('x-service-timestamp');
  });

  it('refuses an authentic delivery outside a custom window with timestamp_outside_tolerance', () => {
    const error = errorOf({ ...signed(), toleranceSeconds: 0.5 });
    expect(error.code).toBe('timestamp_outside_tolerance');
    expect(error.message).toMatch(/0\.75 s old/);
    expect(verdict({ ...signed(), toleranceSeconds: 0.75 })).toBe('valid');
  });

  it('reports a signature mismatch rather than the window when both are wrong', () => {
    const options = signed();
    expect(errorOf({ ...options, secret: 'whsec_other', now: new Date(0) }).code).toBe(
      'signature_mismatch',
    );
  });

  it.each([
    ['not JSON', 'event=email.received'],
    ['a JSON array', JSON.stringify([envelope()])],
    ['JSON null', 'null'],
    ['missing data', JSON.stringify(envelope({ data: undefined }))],
    ['data that is an array', JSON.stringify(envelope({ data: [] }))],
    ['a numeric webhookId', JSON.stringify(envelope({ webhookId: 42 }))],
    ['missing event', JSON.stringify(envelope({ event: undefined }))],
  ])('refuses a signed body that is %s with malformed_body', (_what, rawBody) => {
    expect(errorOf(signed(rawBody)).code).toBe('malformed_body');
  });

  it('refuses a signed body that is not UTF-8 with malformed_body', () => {
    const rawBody = Buffer.concat([
      Buffer.from('{"event":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    expect(errorOf(signed(rawBody)).code).toBe('malformed_body');
  });

  it.each([
    ['x-service-webhook-id', 'wh_someone_else'],
    ['x-service-event', 'webhook.test'],
  ])(
    'refuses a %s header that differs from the signed body with header_body_mismatch',
    (name, value) => {
      const error = errorOf(signed(undefined, { [name]: value }));
      expect(error.code).toBe('header_body_mismatch');
      expect(error.header).toBe(name);
    },
  );

  it('refuses a body timestamp that differs from the signed header with header_body_mismatch', () => {
    const error = errorOf(
      signed(JSON.stringify(envelope({ timestamp: '2026-11-20T09:15:01.000Z' }))),
    );
    expect(error.code).toBe('header_body_mismatch');
    expect(error.header).toBe('x-service-timestamp');
  });

  it('never parses the body when the signature is wrong', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const options = signed('this is not JSON');
    expect(errorOf({ ...options, secret: 'whsec_wrong' }).code).toBe('signature_mismatch');
    expect(parse).not.toHaveBeenCalled();
  });

  it('never parses the body when the timestamp is outside the window', () => {
    const parse = vi.spyOn(JSON, 'parse');
    expect(errorOf({ ...signed('this is not JSON'), now: new Date(0) }).code).toBe(
      'timestamp_outside_tolerance',
    );
    expect(parse).not.toHaveBeenCalled();
  });

  it('reads header names in any case from a plain object', () => {
    const options = signed();
    const headers = options.headers as Record<string, string>;
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    const mixed = {
      'X-Service-Signature': headers['x-service-signature'],
      'x-SERVICE-timestamp': headers['x-service-timestamp'],
      'X-Service-Webhook-ID': headers['x-service-webhook-id'],
    };
    expect(verdict({ ...options, headers: upper })).toBe('valid');
    expect(verdict({ ...options, headers: mixed })).toBe('valid');
  });

  it('reads string[] header values as Node gives them', () => {
    const options = signed();
    const arrays = Object.fromEntries(
      Object.entries(options.headers as Record<string, string>).map(([k, v]) => [k, [v]]),
    );
    expect(verdict({ ...options, headers: arrays })).toBe('valid');
  });

  it('joins repeated signature headers and refuses them as malformed', () => {
    const options = signed();
    const sig = (options.headers as Record<string, string>)['x-service-signature'] ?? '';
    expect(errorOf(signed(undefined, { 'x-service-signature': [sig, sig] })).code).toBe(
      'malformed_signature',
    );
  });

  it('reads a Fetch Headers object', () => {
    const options = signed();
    const headers = new Headers(options.headers as Record<string, string>);
    expect(verdict({ ...options, headers })).toBe('valid');
    headers.delete('X-Service-Signature');
    expect(verdict({ ...options, headers })).toBe('missing_header');
  });

  it('verifies a Buffer, a plain Uint8Array and a string of the same UTF-8 bytes alike', () => {
    const text = JSON.stringify(
      envelope({ data: { id: 'e1', mailbox: 'a@b.test', note: 'é 😀 日本語' } }),
    );
    const buffer = Buffer.from(text, 'utf8');
    const plain = new Uint8Array(buffer);
    const header = signatureFor(SECRET, TIMESTAMP, text);
    for (const rawBody of [text, buffer, plain]) {
      const result = verifyWebhook(signed(rawBody, { 'x-service-signature': header }));
      expect(result.payload.data).toEqual({ id: 'e1', mailbox: 'a@b.test', note: 'é 😀 日本語' });
    }
  });

  it('refuses a parsed body as a programming error', () => {
    const options = { ...signed(), rawBody: envelope() } as unknown as VerifyWebhookOptions;
    expect(() => verifyWebhook(options)).toThrow(TypeError);
  });

  it('refuses a negative or non-finite window and an invalid now as programming errors', () => {
    expect(() => verifyWebhook({ ...signed(), toleranceSeconds: -1 })).toThrow(TypeError);
    expect(() => verifyWebhook({ ...signed(), toleranceSeconds: Number.NaN })).toThrow(TypeError);
    expect(() => verifyWebhook({ ...signed(), now: new Date('nope') })).toThrow(TypeError);
  });

  it('accepts epoch milliseconds as now', () => {
    expect(verdict({ ...signed(), now: NOW.getTime() })).toBe('valid');
  });

  it('is an Error named WebhookVerificationError with a code', () => {
    const error = errorOf({ ...signed(), secret: 'whsec_wrong' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('WebhookVerificationError');
    expect(WEBHOOK_ERROR_CODES).toContain(error.code);
  });
});

describe('signatureFor (emulator) and verifyWebhook (receiver)', () => {
  it('produces sha256= and 64 lowercase hex digits, the same for a string and its UTF-8 bytes', () => {
    const text = '{"x":"é 😀 日本語"}';
    const header = signatureFor(SECRET, TIMESTAMP, text);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signatureFor(SECRET, TIMESTAMP, Buffer.from(text, 'utf8'))).toBe(header);
  });

  it('agree on any secret, moment and JSON body', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1 }),
        fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }),
        fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()),
        (secretTail, moment, extra) => {
          const secret = `whsec_${secretTail}`;
          const timestamp = moment.toISOString();
          const rawBody = JSON.stringify({
            ...envelope({ timestamp }),
            data: { ...extra, id: 'e1', mailbox: 'a@b.test' },
          });
          const result = verifyWebhook({
            secret,
            rawBody,
            now: moment,
            headers: {
              'x-service-webhook-id': WEBHOOK_ID,
              'x-service-timestamp': timestamp,
              'x-service-signature': signatureFor(secret, timestamp, rawBody),
            },
          });
          expect(result.payload).toEqual(JSON.parse(rawBody));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('matches openssl on arbitrary body bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        const input = Buffer.concat([Buffer.from(`${TIMESTAMP}.`), bytes]);
        expect(signatureFor(SECRET, TIMESTAMP, bytes)).toBe(
          `sha256=${opensslHmacHex(SECRET, input)}`,
        );
      }),
      { numRuns: 30 },
    );
  });
});
