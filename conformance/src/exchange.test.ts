import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { describeExchange, toCurl, type Exchange } from './exchange.ts';

const BASE = 'https://mail.example.com/openapi/v1';
const SECRET = 'sk-live-0123456789abcdef';

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

describe('toCurl', () => {
  it('writes a URL under the base URL as "$MAILTWIN_BASE_URL" plus the quoted relative path', () => {
    expect(toCurl(exchange({ url: `${BASE}/emails?mailbox=a%40acme.test&limit=5` }), BASE)).toBe(
      `curl -i -X GET "$MAILTWIN_BASE_URL"'/emails?mailbox=a%40acme.test&limit=5' -H "Authorization: Bearer $MAILTWIN_API_KEY"`,
    );
  });

  it('writes an absolute, quoted URL when the URL is not under the base URL', () => {
    const docs = exchange({ url: 'https://mail.example.com/openapi/docs', headers: {} });
    expect(toCurl(docs, BASE)).toBe(`curl -i -X GET 'https://mail.example.com/openapi/docs'`);
  });

  it('never prints the API key, whatever the case of the header name', () => {
    for (const name of ['Authorization', 'authorization', 'AUTHORIZATION']) {
      const command = toCurl(exchange({ headers: { [name]: `Bearer ${SECRET}` } }), BASE);
      expect(command).not.toContain(SECRET);
      expect(command).toContain(`-H "Authorization: Bearer $MAILTWIN_API_KEY"`);
    }
  });

  it('prints other headers single-quoted, as given', () => {
    const command = toCurl(
      exchange({
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Test': "it's" },
      }),
      BASE,
    );
    expect(command).toBe(
      `curl -i -X POST "$MAILTWIN_BASE_URL"'/mailboxes' -H 'Content-Type: application/json' -H 'X-Test: it'\\''s'`,
    );
  });

  it('passes a body with --data-binary, escaping single quotes', () => {
    const command = toCurl(
      exchange({ method: 'POST', headers: {}, body: `{"subject":"it's"}` }),
      BASE,
    );
    expect(command).toBe(
      `curl -i -X POST "$MAILTWIN_BASE_URL"'/mailboxes' --data-binary '{"subject":"it'\\''s"}'`,
    );
  });

  it('prints a command that bash turns into exactly the original request', () => {
    const body = [
      `{"subject":"It's 'quoted' ''`,
      `"text":"$HOME \`id\` $(id) \\\\ \\" ! * ?",`,
      `"html":"<p>'</p>"}`,
    ].join('\n');
    const url = `${BASE}/emails/01J'X/reply?x=$HOME&y='z'`;
    const command = toCurl(
      exchange({
        method: 'POST',
        url,
        headers: {
          Authorization: `Bearer ${SECRET}`,
          'Content-Type': 'application/json',
          'X-Note': `a'b "c" $d`,
        },
        body,
      }),
      BASE,
    );
    expect(command).not.toContain(SECRET);
    const args = argumentsCurlWouldGet(command, {
      MAILTWIN_BASE_URL: BASE,
      MAILTWIN_API_KEY: SECRET,
      HOME: '/should-not-expand',
    });
    expect(args).toEqual([
      '-i',
      '-X',
      'POST',
      url,
      '-H',
      `Authorization: Bearer ${SECRET}`,
      '-H',
      'Content-Type: application/json',
      '-H',
      `X-Note: a'b "c" $d`,
      '--data-binary',
      body,
    ]);
  });

  it('replays against another target by changing only $MAILTWIN_BASE_URL', () => {
    const command = toCurl(exchange({ url: `${BASE}/emails/abc` }), BASE);
    const args = argumentsCurlWouldGet(command, {
      MAILTWIN_BASE_URL: 'http://127.0.0.1:4010/openapi/v1',
      MAILTWIN_API_KEY: 'sk-other',
    });
    expect(args).toEqual([
      '-i',
      '-X',
      'GET',
      'http://127.0.0.1:4010/openapi/v1/emails/abc',
      '-H',
      'Authorization: Bearer sk-other',
    ]);
  });
});

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
      BASE,
    );
    expect(text).toBe(
      [
        `  replay: curl -i -X GET "$MAILTWIN_BASE_URL"'/mailboxes' -H "Authorization: Bearer $MAILTWIN_API_KEY"`,
        '  response: 404 (application/json) {"code":"email_not_found"}',
      ].join('\n'),
    );
  });

  it('says when the response had no content type', () => {
    const text = describeExchange(
      exchange({}, { response: { status: 204, headers: {}, bodyText: '' } }),
      BASE,
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
      BASE,
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
      BASE,
      10,
    );
    expect(text.split('\n')[1]).toBe(`  response: 200 (text/plain) ${'b'.repeat(10)}`);
  });

  it('says when no response arrived', () => {
    const text = describeExchange(exchange(), BASE);
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
      BASE,
    );
    expect(text.split('\n').slice(2)).toEqual([
      '  spec violation: first problem',
      '  spec violation: second problem',
    ]);
  });

  it('does not print the API key', () => {
    const text = describeExchange(
      exchange({}, { response: { status: 200, headers: {}, bodyText: '[]' } }),
      BASE,
    );
    expect(text).not.toContain(SECRET);
  });
});
