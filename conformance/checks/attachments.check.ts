/**
 * §2.4, §4.9, §4.10 and the attachment rows of §8: uploads are stored and served byte for
 * byte, reused without copying, limited per message exactly at 20 files, 3 MiB raw and 5 MiB
 * encoded, and visible only to their owner (D-32, D-33) or through their public URL.
 *
 * Success is any 2xx (201 is D-44's); a refusal is a 4xx charged to the rule requiring it,
 * its exact status, code and field to the decision that chose them.
 *
 * Uploads need only a key, so the upload checks run on any target given --destructive; mail
 * goes from the first mailbox of the world to the second (send-world.ts), which in an API
 * world are the --mailbox addresses, the received copy awaited there and deleted at the end.
 * Uploads cannot be deleted through the API (§4.9 has no DELETE): an API world leaves them.
 */
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { chargeTo, expectAt } from '../src/charge.ts';
import { MissingCapability, rule, type CheckContext } from '../src/check.ts';
import type { ApiClient, ApiResponse } from '../src/client.ts';
import { ControlClient, createTenant } from '../src/control-client.ts';
import { external, world, type World } from '../src/send-world.ts';

const MIB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Uploaded {
  id: string;
  name: string;
  contentType: string;
  size: number;
  url: string;
}

interface Detail {
  id: string;
  attachments: { id: string; name: string; contentType: string; size: number }[];
}

async function upload(
  api: ApiClient,
  apiKey: string,
  bytes: Uint8Array,
  name = 'file.bin',
  type = 'application/octet-stream',
) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  return api.request({ method: 'POST', path: '/attachments', body: form, apiKey });
}

/** A 2xx answer, charged to `rule`. */
function expectSuccess(rule: string, response: ApiResponse, what: string) {
  expectAt(
    rule,
    response.status >= 200 && response.status <= 299,
    `${what}: a 2xx answer, got ${response.status} ${response.text.slice(0, 300)}`,
  ).toBe(true);
}

/**
 * A refusal: a 4xx charged to `refused`, the rule requiring it; its status, code and (when
 * given) field charged to `decided`, the decision that chose them.
 */
function expectRefused(
  [refused, decided]: readonly [string, string],
  response: ApiResponse,
  status: number,
  code: string,
  field: string | undefined,
  what: string,
) {
  expectAt(
    refused,
    response.status >= 400 && response.status <= 499,
    `${what}: refused with a 4xx, got ${response.status} ${response.text.slice(0, 300)}`,
  ).toBe(true);
  expectAt(decided, response.status, what).toBe(status);
  const error = response.json<{ code?: string; field?: string }>();
  expectAt(decided, error.code, what).toBe(code);
  if (field !== undefined) expectAt(decided, error.field, what).toBe(field);
}

/** An upload that must succeed, charged to `rule` (the check's premise). */
async function uploaded(
  rule: string,
  api: ApiClient,
  apiKey: string,
  bytes: Uint8Array,
  name?: string,
  type?: string,
): Promise<Uploaded> {
  const response = await upload(api, apiKey, bytes, name, type);
  expectSuccess(rule, response, `upload of ${bytes.length} bytes`);
  return response.json<Uploaded>();
}

/**
 * The key a check that only uploads works with: in an API world the key given (an upload
 * needs no mailbox), in a control world a fresh owner's.
 */
async function uploaderKey({ api, target }: CheckContext): Promise<string> {
  if (target.control !== undefined)
    return (await createTenant(new ControlClient(api, target.control))).key.secret;
  if (target.apiKey === undefined) throw new MissingCapability('needs an API key (give --api-key)');
  return target.apiKey;
}

/** POST /emails/send from the world's first mailbox to its second, with files by default. */
function send(w: World, json: Record<string, unknown>) {
  return w.send({
    from: w.box[0],
    to: w.box[1],
    subject: 'Files',
    text: 'See attached.',
    ...json,
  });
}

rule(
  ['4.9-R1', '4.9-R2', '2.4-R1', '2.4-R2', '2.4-R3', '4.10-R1'],
  'stores any upload byte for byte and serves it by id and by its public URL without a key',
  async (context) => {
    const { api, target, property } = context;
    const apiKey = await uploaderKey(context);
    await property(
      fc.tuple(
        fc.uint8Array({ minLength: 1, maxLength: 4096 }),
        fc.constantFrom('report.pdf', 'données 2026.csv', 'notes.txt', '写真.png'),
        fc.constantFrom('application/pdf', 'text/csv', 'image/png', 'application/octet-stream'),
      ),
      async ([bytes, name, type]) => {
        const file = await uploaded('4.9-R1', api, apiKey, bytes, name, type);
        expectAt('2.4-R1', file.id).toMatch(UUID);
        expectAt('2.4-R2', file).toMatchObject({ name, contentType: type, size: bytes.length });
        const byId = await api.request({ path: `/attachments/${file.id}`, apiKey });
        expectAt('4.10-R1', byId.status).toBe(200);
        expectAt('4.10-R1', sha256(byId.bytes)).toBe(sha256(bytes));
        expectAt('4.10-R1', byId.headers.get('content-type'), 'served as its media type').toBe(
          type,
        );
        expectAt('2.4-R3', new URL(file.url).origin, 'the URL is under the deployment').toBe(
          target.origin,
        );
        const publicly = await api.request({ path: file.url, absolute: true });
        expectAt('2.4-R3', publicly.status, 'the public URL needs no key').toBe(200);
        expectAt('2.4-R3', sha256(publicly.bytes)).toBe(sha256(bytes));
      },
    );
  },
  { needs: ['destructive'] },
);

rule(
  ['2.4-R3'],
  'makes public URLs unguessable: a changed token serves nothing',
  async (context) => {
    const file = await uploaded('2.4-R3', context.api, await uploaderKey(context), randomBytes(64));
    const url = new URL(file.url);
    // Under the deployment's content path (§2.4): the suite requests no other origin.
    expectAt('2.4-R3', url.origin, 'the URL is under the deployment').toBe(context.target.origin);
    // The token is the URL's longest path segment, wherever the deployment puts it (D-43 is ours).
    const token = url.pathname
      .split('/')
      .reduce((longest, segment) => (segment.length > longest.length ? segment : longest), '');
    expectAt(
      '2.4-R3',
      token.length,
      'token length (≥ 128 bits of base62 needs ≥ 22 characters)',
    ).toBeGreaterThanOrEqual(22);
    const forged = file.url.replace(
      token,
      `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`,
    );
    const status = (await context.api.request({ path: forged, absolute: true })).status;
    expectAt(
      '2.4-R3',
      status >= 400 && status <= 499,
      `a forged URL serves nothing: ${status}`,
    ).toBe(true);
  },
  { needs: ['destructive'] },
);

rule(
  ['4.9-R1', '8-R8', 'D-12', 'D-28'],
  'refuses an upload without exactly one non-empty file in the field file, naming the field',
  async (context) => {
    const { api } = context;
    const key = await uploaderKey(context);
    const form = (build: (f: FormData) => void) => {
      const f = new FormData();
      build(f);
      return f;
    };
    // [what, body, headers, rules (the refusal's, its status/code/field's), status, code, field]
    const cases: [
      string,
      FormData | string,
      Record<string, string> | undefined,
      readonly [string, string],
      number,
      string,
      string | undefined,
    ][] = [
      [
        'no field at all',
        form(() => {}),
        undefined,
        ['4.9-R1', 'D-12'],
        400,
        'file_missing',
        'file',
      ],
      [
        'two files',
        form((f) => {
          f.append('file', new Blob(['a']), 'a');
          f.append('file', new Blob(['b']), 'b');
        }),
        undefined,
        ['8-R8', 'D-12'],
        400,
        'too_many_files',
        'file',
      ],
      [
        'an empty file',
        form((f) => f.append('file', new Blob([]), 'empty.txt')),
        undefined,
        ['8-R8', 'D-12'],
        400,
        'file_empty',
        'file',
      ],
      [
        'another field name',
        form((f) => f.append('upload', new Blob(['a']), 'a')),
        undefined,
        ['4.9-R1', 'D-12'],
        400,
        'unknown_field',
        'upload',
      ],
      [
        'text instead of a file',
        form((f) => f.append('file', 'just text')),
        undefined,
        ['4.9-R1', 'D-12'],
        400,
        'file_missing',
        'file',
      ],
      [
        'JSON instead of a form',
        '{"file":"x"}',
        { 'Content-Type': 'application/json' },
        ['4.9-R1', 'D-28'],
        415,
        'unsupported_media_type',
        undefined,
      ],
      [
        'a broken form',
        '--nope\r\nContent-Disposition: form-data; name="file"\r\n',
        { 'Content-Type': 'multipart/form-data; boundary=XyZ' },
        ['4.9-R1', 'D-12'],
        400,
        'invalid_multipart',
        undefined,
      ],
    ];
    for (const [what, body, headers, rules, status, code, field] of cases) {
      const response = await api.request({
        method: 'POST',
        path: '/attachments',
        body,
        apiKey: key,
        ...(headers ? { headers } : {}),
      });
      expectRefused(rules, response, status, code, field, what);
    }
  },
  { needs: ['destructive'] },
);

rule(
  ['2.4-R4', '2.4-R5', '2.3-R5', '4.4-R1', '4.3-R13', 'D-33', 'D-21'],
  "reuses one upload in many sends; each message exposes its own attachment ids, whose bytes are the upload's",
  async (context) => {
    const w = await world(context, { rule: '2.4-R4' });
    const bytes = randomBytes(5000);
    const file = await uploaded(
      '2.4-R4',
      w.api,
      w.apiKey,
      bytes,
      'contract.pdf',
      'application/pdf',
    );
    const seen = new Set<string>();
    for (let i = 0; i < 3; i += 1) {
      const sent = await send(w, { subject: `Files ${i + 1}`, attachmentIds: [file.id] });
      expectSuccess('2.4-R4', sent, `send ${i + 1} reusing the upload`);
      // The answer is the sent copy with its attachments (D-21); its detail (§4.4) by its id.
      expectAt(
        'D-21',
        sent.json<Detail>().attachments,
        'the answer lists the attachment',
      ).toHaveLength(1);
      const detail = await w.get(sent.json<Detail>().id, '4.4-R1');
      expectAt('2.3-R5', detail.attachments, 'the detail exposes its attachment').toHaveLength(1);
      const own = detail.attachments[0]!;
      expectAt('4.3-R13', own, 'the upload is attached').toMatchObject({
        name: 'contract.pdf',
        contentType: 'application/pdf',
        size: 5000,
      });
      expectAt('2.4-R5', seen.has(own.id), "a message attachment id is not another message's").toBe(
        false,
      );
      expectAt('D-33', own.id, 'a message attachment id is distinct from the upload id').not.toBe(
        file.id,
      );
      seen.add(own.id);
      const downloaded = await w.api.request({ path: `/attachments/${own.id}`, apiKey: w.apiKey });
      expectAt('2.4-R5', sha256(downloaded.bytes)).toBe(sha256(bytes));
    }
    // The recipient's copy has its own ids too, and the same bytes (upload → send → receive →
    // download), read once all three have arrived (w.listed awaits them).
    const received = await w.listed(w.box[1]!);
    expectAt('2.4-R4', received, 'the recipient got each of the three').toHaveLength(3);
    const receivedDetail = await w.get(received[0]!.id, '4.4-R1');
    const receivedId = receivedDetail.attachments[0]!.id;
    expectAt('2.4-R5', seen.has(receivedId), 'the received copy has its own id').toBe(false);
    const downloaded = await w.api.request({
      path: `/attachments/${receivedId}`,
      apiKey: w.apiKey,
    });
    expectAt('2.4-R5', sha256(downloaded.bytes)).toBe(sha256(bytes));
  },
  { needs: ['mail', 'destructive'] },
);

rule(
  ['8-R4', 'D-12'],
  'accepts 20 uploaded files in one email and refuses 21 with too_many_attachments',
  async (context) => {
    const w = await world(context, { rule: '8-R4' });
    const ids: string[] = [];
    for (let i = 0; i < 21; i += 1)
      ids.push((await uploaded('8-R4', w.api, w.apiKey, randomBytes(16), `f${i}.bin`)).id);
    expectSuccess('8-R4', await send(w, { attachmentIds: ids.slice(0, 20) }), '20 files');
    const refused = await send(w, { attachmentIds: ids });
    expectRefused(
      ['8-R4', 'D-12'],
      refused,
      400,
      'too_many_attachments',
      'attachmentIds',
      '21 files',
    );
  },
  { needs: ['mail', 'destructive'] },
);

rule(
  ['8-R5', '8-R9', 'D-41'],
  'accepts exactly 3 MiB of raw attachment data and refuses one byte more, pointing to the url',
  async (context) => {
    const w = await world(context, { rule: '8-R5' });
    const big = await uploaded('8-R5', w.api, w.apiKey, randomBytes(2 * MIB));
    const exact = await uploaded('8-R5', w.api, w.apiKey, randomBytes(MIB));
    const oneMore = await uploaded('8-R5', w.api, w.apiKey, randomBytes(MIB + 1));
    expectSuccess('8-R5', await send(w, { attachmentIds: [big.id, exact.id] }), 'exactly 3 MiB');
    const refused = await send(w, { attachmentIds: [big.id, oneMore.id] });
    expectRefused(
      ['8-R5', 'D-41'],
      refused,
      400,
      'attachments_too_large',
      undefined,
      '3 MiB + 1 byte',
    );
    const error = refused.json<{ code: string; message: string }>();
    expectAt('D-41', error.message, 'the error says the url can go in the body instead').toMatch(
      /url/i,
    );
  },
  { needs: ['mail', 'destructive'], timeout: 60_000 },
);

rule(
  ['8-R6', 'D-42'],
  'accepts an encoded message within 1 KiB under 5 MiB and refuses one within 1 KiB over, measured on the .eml sent',
  async (context) => {
    const w = await world(context, { boxes: 1, rule: '8-R6' });
    const limit = 5 * MIB;
    // Lines of 70 characters stay 7-bit in MIME, so the message grows one byte per character.
    const body = (chars: number) =>
      `${'x'.repeat(69)}\n`.repeat(Math.floor(chars / 70)) + 'y'.repeat(chars % 70);
    const sendText = (text: string) =>
      w.send({ from: w.box[0], to: external('limit'), subject: 'Files', text });
    /** The raw .eml of the newest message this check sent. */
    const newestEml = async () => {
      const newest = (await w.outbox())[0];
      expectAt('8-R6', newest, 'a message in the outbox').toBeDefined();
      return w.control.outboxEml(newest!.id);
    };
    const probe = await sendText(body(1000));
    expectSuccess('8-R6', probe, 'a small message');
    const overhead = (await newestEml()).length - 1000;
    let under = limit - 512 - overhead;
    let accepted = await sendText(body(under));
    let eml = (await newestEml()).length;
    // Encoders differ by a few bytes; step down until the message is accepted, checking the size.
    for (let i = 0; accepted.status !== 201 && i < 4; i += 1) {
      under -= 256;
      accepted = await sendText(body(under));
      eml = (await newestEml()).length;
    }
    expectSuccess('8-R6', accepted, 'a message just under 5 MiB');
    expectAt('8-R6', eml).toBeLessThanOrEqual(limit);
    // Measured on the message as built for sending: D-42's measure.
    expectAt('D-42', eml, 'the accepted message is within 1 KiB of 5 MiB').toBeGreaterThan(
      limit - 1024,
    );
    const over = under + (limit - eml) + 512;
    const refused = await sendText(body(over));
    expectRefused(
      ['8-R6', 'D-42'],
      refused,
      400,
      'message_too_large',
      undefined,
      'a message just over 5 MiB',
    );
  },
  // The encoded size is read off the raw message as sent, which only a control plane shows.
  { needs: ['sent-message', 'destructive'], timeout: 60_000 },
);

/**
 * A key of the world's owner other than its own, and a key of another owner with a mailbox
 * it may send from: made through the control plane in a control world; in an API world the
 * keys given by role (--key selected-mailbox= or one-domain=, --key other-owner=), the other
 * owner's mailbox read from GET /mailboxes with its key.
 */
async function otherKeys(context: CheckContext, w: World) {
  const { target } = context;
  if (target.control !== undefined) {
    const stranger = await createTenant(w.control);
    const narrow = await w.control.createKey(w.tenant.ownerId!, 'selected-mailbox', {
      mailboxes: [w.box[0]!],
    });
    return { narrow: narrow.secret, stranger: stranger.key.secret, from: stranger.mailboxes[0]! };
  }
  const keys = target.keys ?? {};
  const narrow = keys['selected-mailbox'] ?? keys['one-domain'];
  const stranger = keys['other-owner'] ?? target.secondApiKey;
  if (narrow === undefined || stranger === undefined)
    throw new MissingCapability('needs a second key of the owner and a key of another owner');
  const reach = await w.api.request({ path: '/mailboxes', apiKey: stranger });
  const from = reach.status === 200 ? reach.json<{ address: string }[]>()[0]?.address : undefined;
  if (from === undefined)
    throw new MissingCapability('needs a key of another owner that reaches a mailbox');
  return { narrow, stranger, from };
}

rule(
  ['D-32', 'D-33', 'D-26', '5-R3'],
  "lets any key of the uploading owner reuse an upload, and no key of another owner see it or the message's files",
  async (context) => {
    const w = await world(context, { rule: 'D-32' });
    const { narrow, stranger, from } = await otherKeys(context, w);
    const file = await uploaded('D-32', w.api, w.apiKey, randomBytes(100));
    expectAt(
      'D-32',
      (await w.api.request({ path: `/attachments/${file.id}`, apiKey: narrow })).status,
      'another key of the same owner',
    ).toBe(200);
    const sent = (await send(w, { attachmentIds: [file.id] })).json<Detail>();
    // An upload belongs to its owner (D-32); a message's file to the message's mailbox, which is
    // outside the stranger's scope (§5 rule 3), answered like a missing one (D-26).
    for (const [id, rules] of [
      [file.id, ['D-32', 'D-32']],
      [sent.attachments[0]!.id, ['5-R3', 'D-26']],
    ] as const) {
      const response = await w.api.request({ path: `/attachments/${id}`, apiKey: stranger });
      expectRefused(
        rules,
        response,
        404,
        'attachment_not_found',
        undefined,
        `another owner downloading ${id}`,
      );
    }
    // To an address of the suite's own, which reaches nobody: the send must be refused anyway.
    const reuse = await w.api.request({
      method: 'POST',
      path: '/emails/send',
      json: { from, to: external('reuse'), subject: 'Files', text: 'x', attachmentIds: [file.id] },
      apiKey: stranger,
    });
    if (reuse.status >= 200 && reuse.status <= 299) {
      // Carried out against the rule: its sent copy is not left in the other owner's mailbox.
      const copy = reuse.json<{ id?: string }>().id;
      if (copy !== undefined)
        context.cleanup(async () => {
          await w.api.request({ method: 'DELETE', path: `/emails/${copy}`, apiKey: stranger });
        });
    }
    expectRefused(
      ['D-32', 'D-32'],
      reuse,
      404,
      'attachment_not_found',
      'attachmentIds[0]',
      'another owner sending the upload',
    );
  },
  { needs: ['second-key', 'scoped-keys', 'mail', 'destructive'] },
);

rule(
  ['4.9-R3', '8-R7', 'D-27'],
  'puts no application cap on uploads (6 MiB accepted) but refuses a request above the platform limit with 413',
  async (context) => {
    const { api } = context;
    const apiKey = await uploaderKey(context);
    const large = await upload(api, apiKey, randomBytes(6 * MIB));
    expectSuccess('4.9-R3', large, 'a 6 MiB upload, larger than any message may be');
    // D-27 on every target: a platform with another ceiling only warns, and no answer at all
    // (a proxy closing the connection) is charged to D-27 too, never to the documented rules.
    await chargeTo('D-27', async () => {
      const tooLarge = await api.request({
        method: 'POST',
        path: '/emails/send',
        body: `{"text":"${'x'.repeat(25 * MIB)}"}`,
        headers: { 'Content-Type': 'application/json' },
        apiKey,
      });
      expectAt('D-27', tooLarge.status, 'a 25 MiB request body').toBe(413);
      expectAt('D-27', tooLarge.json()).toMatchObject({ code: 'request_too_large' });
    });
  },
  { needs: ['destructive'], timeout: 60_000 },
);
