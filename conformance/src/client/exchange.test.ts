import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { ReplayContext } from './curl.ts';
import {
  describeExchange,
  recordBody,
  recordMadeSecret,
  replayExchanges,
  type Exchange,
} from './exchange.ts';

const BASE = 'https://mail.example.com/openapi/v1';
const CONTROL = 'https://mail.example.com/_mailtwin/v1';
const SECRET = 'sk-live-0123456789abcdef';
const TOKEN = 'mt_0123456789abcdefghijkl';
const CONTEXT: ReplayContext = {
  baseUrl: BASE,
  controlUrl: CONTROL,
  apiKey: SECRET,
  controlToken: TOKEN,
};

function exchange(
  overrides: Partial<Exchange['request']> = {},
  rest: Partial<Exchange> = {},
): Exchange {
  return {
    request: {
      method: 'GET',
      url: `${BASE}/mailboxes`,
      headers: { Authorization: `Bearer ${SECRET}` },
      ...overrides,
    },
    violations: [],
    ...rest,
  };
}

/**
 * Runs a printed curl command in bash with `curl` replaced by a function that prints each of
 * its arguments NUL-terminated, and returns the arguments curl would have received.
 */
function argumentsCurlWouldGet(command: string, env: Record<string, string>): string[] {
  const script = `curl() { printf '%s\\0' "$@"; }\n${command}`;
  const out = execFileSync('bash', ['-c', script], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
    // stdin from /dev/null: bash reads ~/.bashrc when stdin is a socket (as Node's pipes are).
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out.split('\0').slice(0, -1);
}

describe('describeExchange', () => {
  it('shows the replay command, status, content type and body', () => {
    const text = describeExchange(
      exchange(
        {},
        {
          response: {
            status: 404,
            headers: { 'content-type': 'application/json' },
            bodyText: '{"code":"email_not_found"}',
          },
        },
      ),
      CONTEXT,
    );
    expect(text).toBe(
      [
        `  replay: curl -i -X GET "$MAILTWIN_BASE_URL"'/mailboxes' -H "Authorization: Bearer $MAILTWIN_API_KEY"`,
        '  response: 404 (application/json) {"code":"email_not_found"}',
      ].join('\n'),
    );
  });

  it('summarises a binary body by its size, and escapes control characters in a text one (issue 27 item 11)', () => {
    const bytes = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const binary = describeExchange(
      exchange(
        {},
        {
          response: {
            status: 200,
            headers: { 'content-type': 'image/png', 'content-length': String(bytes.length) },
            bodyText: new TextDecoder().decode(bytes),
          },
        },
      ),
      CONTEXT,
    );
    expect(binary.split('\n')[1]).toBe('  response: 200 (image/png) <12 bytes binary>');
    const text = describeExchange(
      exchange(
        {},
        {
          response: {
            status: 400,
            headers: { 'content-type': 'application/json' },
            bodyText: '{"message":"bad \u001b[31mred\u0007"}\r\n',
          },
        },
      ),
      CONTEXT,
    );
    expect(text.split('\n')[1]).toBe(
      '  response: 400 (application/json) {"message":"bad \\x1b[31mred\\x07"}\\r',
    );
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });

  it('says when the response had no content type', () => {
    const text = describeExchange(
      exchange({}, { response: { status: 204, headers: {}, bodyText: '' } }),
      CONTEXT,
    );
    expect(text.split('\n')[1]).toBe('  response: 204 (no content-type) ');
  });

  it('truncates a long body and gives its full length', () => {
    const text = describeExchange(
      exchange(
        {},
        {
          response: {
            status: 200,
            headers: { 'content-type': 'text/plain' },
            bodyText: 'a'.repeat(30),
          },
        },
      ),
      CONTEXT,
      10,
    );
    expect(text.split('\n')[1]).toBe(`  response: 200 (text/plain) ${'a'.repeat(10)}… (30 chars)`);
  });

  it('keeps a body of exactly the limit whole', () => {
    const text = describeExchange(
      exchange(
        {},
        {
          response: {
            status: 200,
            headers: { 'content-type': 'text/plain' },
            bodyText: 'b'.repeat(10),
          },
        },
      ),
      CONTEXT,
      10,
    );
    expect(text.split('\n')[1]).toBe(`  response: 200 (text/plain) ${'b'.repeat(10)}`);
  });

  it('says when no response arrived', () => {
    const text = describeExchange(exchange(), CONTEXT);
    expect(text.split('\n')[1]).toBe(
      '  response: none (the request failed before an answer arrived)',
    );
  });

  it('lists each spec violation on its own line', () => {
    const text = describeExchange(
      exchange(
        {},
        {
          response: { status: 418, headers: { 'content-type': 'text/plain' }, bodyText: 'teapot' },
          violations: ['first problem', 'second problem'],
        },
      ),
      CONTEXT,
    );
    expect(text.split('\n').slice(2)).toEqual([
      '  spec violation: first problem',
      '  spec violation: second problem',
    ]);
  });

  it('does not print the API key', () => {
    const text = describeExchange(
      exchange({}, { response: { status: 200, headers: {}, bodyText: '[]' } }),
      CONTEXT,
    );
    expect(text).not.toContain(SECRET);
  });
});

/** The control-plane call that made a key, and the key's secret in its answer. */
function keyMaker(secret: string): Exchange {
  return {
    request: {
      method: 'POST',
      url: `${CONTROL}/keys`,
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: '{"ownerId":"own_1","name":"conformance follow-owner","scope":"follow-owner"}',
    },
    response: {
      status: 201,
      headers: { 'content-type': 'application/json' },
      bodyText: JSON.stringify({ id: 'key_1', secret }),
    },
    violations: [],
  };
}

const MADE = 'sk-AAAAAAAAAAAA_made0000000000000000000000009999';

describe('replayExchanges', () => {
  const folder = mkdtempSync(join(tmpdir(), 'replay-exchanges-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('shows a key the check made as made by its control-plane call, printed first', () => {
    const log: Exchange[] = [];
    const maker = keyMaker(MADE);
    log.push(maker);
    recordMadeSecret(log, maker, MADE);
    // A property empties the log between cases: the key stays known.
    log.length = 0;
    log.push(exchange({ headers: { Authorization: `Bearer ${MADE}` } }));
    const lines = replayExchanges(log, 3, CONTEXT).join('\n').split('\n');
    expect(lines[0]).toBe(
      `  made earlier by the check: KEY_1=$(curl -sS -X POST "$MAILTWIN_CONTROL_URL"'/keys' -H "Authorization: Bearer $MAILTWIN_CONTROL_TOKEN" -H 'Content-Type: application/json' --data-binary '{"ownerId":"own_1","name":"conformance follow-owner","scope":"follow-owner"}' | jq -r .secret)`,
    );
    expect(lines[1]).toBe(
      `  replay: curl -i -X GET "$MAILTWIN_BASE_URL"'/mailboxes' -H "Authorization: Bearer $KEY_1"`,
    );
    expect(lines.join('\n')).not.toContain(MADE);
  });

  it('prints commands that, run in order, send the key the control plane answered', () => {
    const log: Exchange[] = [];
    const maker = keyMaker(MADE);
    log.push(maker, exchange({ url: `${BASE}/emails?api_key=${MADE}`, headers: {} }));
    recordMadeSecret(log, maker, MADE);
    const lines = replayExchanges(log, 3, CONTEXT).join('\n').split('\n');
    const commands = lines
      .filter((l) => l.startsWith('  replay: '))
      .map((l) => l.slice('  replay: '.length));
    expect(commands).toHaveLength(2);
    // curl stands in for the target: the control plane answers a fresh key, the API echoes
    // what it was sent.
    const script = [
      `curl() { case "$*" in *"/keys"*) echo '{"id":"key_9","secret":"sk-fresh"}' ;; *) printf '%s\\0' "$@" ;; esac; }`,
      ...commands,
    ].join('\n');
    const out = execFileSync('bash', ['-c', script], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        MAILTWIN_BASE_URL: BASE,
        MAILTWIN_CONTROL_URL: CONTROL,
        MAILTWIN_CONTROL_TOKEN: TOKEN,
      },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out.split('\0')).toContain(`${BASE}/emails?api_key=sk-fresh`);
  });

  it('names keys in the order they were made, and a webhook secret by its own stem', () => {
    const log: Exchange[] = [];
    const [first, second] = [keyMaker(`${MADE}1`), keyMaker(`${MADE}2`)];
    log.push(first, second);
    recordMadeSecret(log, first, `${MADE}1`);
    recordMadeSecret(log, second, `${MADE}2`);
    recordMadeSecret(log, second, 'whsec_0123456789abcdefghijklmn', { stem: 'WEBHOOK_SECRET' });
    log.push(exchange({ headers: { Authorization: `Bearer ${MADE}2` } }));
    const lines = replayExchanges(log, 2, CONTEXT).join('\n').split('\n');
    expect(lines[0]).toMatch(/^ {2}replay: KEY_2=\$\(curl -sS /);
    expect(lines[2]).toMatch(/-H "Authorization: Bearer \$KEY_2"$/);
    expect(lines.join('\n')).not.toMatch(/sk-AAAA|whsec_0123/);
  });

  it('masks an unknown key-shaped value and every secret in answers', () => {
    const log = [
      exchange(
        { headers: { Authorization: 'Bearer sk-tampered0123456789abcdef' } },
        {
          response: {
            status: 200,
            headers: { 'content-type': 'application/json' },
            bodyText: `{"secret":"whsec_abcdefghijklmnopqrstuvwxyz","token":"${TOKEN}","key":"${SECRET}"}`,
          },
        },
      ),
    ];
    const text = replayExchanges(log, 3, CONTEXT).join('\n');
    expect(text).toContain(`-H 'Authorization: Bearer sk-…cdef'`);
    expect(text).toContain('{"secret":"whsec_…wxyz","token":"mt_…ijkl","key":"sk-…cdef"}');
    for (const secret of [TOKEN, SECRET, 'whsec_abcdefghijklmnopqrstuvwxyz', 'sk-tampered'])
      expect(text).not.toContain(secret);
  });

  it('saves the bytes of a multipart upload beside the report and sends them with -F', async () => {
    const form = new FormData();
    form.append('file', new Blob(['%PDF-1.7 bytes'], { type: 'application/pdf' }), 'a.pdf');
    const upload = exchange({
      method: 'POST',
      url: `${BASE}/attachments`,
      ...(await recordBody(form)),
    });
    const lines = replayExchanges([upload], 3, {
      ...CONTEXT,
      files: { dir: join(folder, 'replay-files'), shown: 'out/replay-files' },
    });
    const [saved] = readdirSync(join(folder, 'replay-files'));
    expect(saved).toMatch(/^[0-9a-f]{64}\.bin$/);
    expect(lines[0]).toContain(
      `-F 'file=@out/replay-files/${saved};filename=a.pdf;type=application/pdf'`,
    );
    expect(lines[0]).not.toContain('<multipart form data>');
  });

  it('says so when the check sent nothing', () => {
    expect(replayExchanges([], 3, CONTEXT)).toEqual(['  (no HTTP exchange)']);
  });
});
