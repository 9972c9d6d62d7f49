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
import { chargeTo, expectAt } from '../src/contract/charge.ts';
import { MissingCapability, rule, type CheckContext } from '../src/check-runner/check.ts';
import type { ApiClient, ApiResponse } from '../src/client/client.ts';
import { ControlClient, createTenant } from '../src/client/control-client.ts';
import {
  expectCreated,
  expectError,
  external,
  world,
  type EmailDetail,
  type World,
} from '../src/worlds/send-world.ts';

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
  // The target's own answer for the condition (its binding) counts, as everywhere.
  expectError([refused, decided], response, status, code, field, what);
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
    text: 'See attached.',
    ...json,
    subject: w.subject(typeof json.subject === 'string' ? json.subject : 'Files'),
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
  { needs: ['destructive'], concurrent: true },
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
  { needs: ['destructive'], concurrent: true },
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
  { needs: ['destructive'], concurrent: true },
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
  { needs: ['mail', 'destructive'], concurrent: true },
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
  { needs: ['mail', 'destructive'], concurrent: true },
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
  { needs: ['mail', 'destructive'], timeout: 60_000, concurrent: true },
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
      json: {
        from,
        to: external('reuse'),
        subject: w.subject('Files'),
        text: 'x',
        attachmentIds: [file.id],
      },
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
  { needs: ['second-key', 'scoped-keys', 'mail', 'destructive'], concurrent: true },
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
      expectError('D-27', tooLarge, 413, 'request_too_large', undefined, 'a 25 MiB request body');
    });
  },
  { needs: ['destructive'], timeout: 60_000, concurrent: true },
);

// --- Many-file messages, reuse, and the limits of replies and forwards (issue 16) ---
/*
 * §2.4, §4.7, §4.8, §4.10 and §8 on messages that carry many files: every attachment of a
 * sent, received, replied or forwarded message downloads as its own bytes; uploads already used
 * are reused in replies and forwards; reuse copies no file (seen on the control plane's storage
 * figure, the one place it shows); the limits of §8 hold for replies and forwards as for sends;
 * a file too large to attach goes in the body as its url, which does not expire. D-63 (a
 * forward's carried files count), D-64 (an ID listed twice) and D-65 (the subject once
 * filled in) are the decisions the document leaves open here.
 *
 * Mail goes between the world's two mailboxes (send-world.ts): in an API world the --mailbox
 * addresses, received copies awaited there and deleted at the end.
 */
/** Uploads `count` small distinct files; their ids. */
async function smallUploads(w: World, count: number, at: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1)
    ids.push((await w.upload(`f${i}.bin`, randomBytes(16), 'application/octet-stream', at)).id);
  return ids;
}

/**
 * The one email of `mailbox` with this subject that is not one of `mine` (the check's sent
 * copies): where a reply or forward arrived.
 */
async function arrived(w: World, mailbox: string, subject: string, mine: Set<string>, at: string) {
  const found = (await w.listed(mailbox)).filter((e) => e.subject === subject && !mine.has(e.id));
  expectAt(
    at,
    found.map((e) => e.subject),
    `${mailbox} received "${subject}" once`,
  ).toHaveLength(1);
  return w.get(found[0]!.id, at);
}

rule(
  ['4.10-R1', '2.4-R5', '2.4-R1', '4.7-R3', '4.8-R2', '4.8-R3'],
  "downloads every file of a many-file message by its own attachment id, byte for byte: sent and received copies, a reply and a forward reusing used uploads, and a forward carrying the original's files",
  async (context) => {
    const w = await world(context, { rule: '4.10-R1' });
    const [box0, box1] = w.box as [string, string];
    // Five files adding up to exactly the 3 MiB a message may carry (§8), of distinct sizes,
    // names and types, so a download of the wrong file cannot pass for the right one.
    const specs: [number, string, string][] = [
      [1, 'one.bin', 'application/octet-stream'],
      [1023, 'notes.txt', 'text/plain'],
      [65_536, 'photo.png', 'image/png'],
      [MIB, 'report.pdf', 'application/pdf'],
      [3 * MIB - MIB - 65_536 - 1024, 'data.csv', 'text/csv'],
    ];
    const shaOf = new Map<string, string>();
    const ids = new Map<string, string>();
    for (const [size, name, type] of specs) {
      const bytes = randomBytes(size);
      ids.set(name, (await w.upload(name, bytes, type, '2.4-R1')).id);
      shaOf.set(name, sha256(bytes));
    }
    const all = [...ids.keys()];
    const seen = new Set<string>();
    /** Every attachment of `detail`: the files named, each with an id of its own and its bytes. */
    const expectFiles = async (at: string, detail: EmailDetail, names: string[], what: string) => {
      expectAt(at, detail.attachments.map((a) => a.name).sort(), `${what}: its files`).toEqual(
        [...names].sort(),
      );
      for (const attachment of detail.attachments) {
        const file = `${what}: ${attachment.name}`;
        expectAt('2.4-R5', seen.has(attachment.id), `${file} has an id of its own`).toBe(false);
        seen.add(attachment.id);
        const bytes = await w.download(attachment.id, '4.10-R1');
        expectAt('4.10-R1', sha256(bytes), `${file} downloads as its own bytes`).toBe(
          shaOf.get(attachment.name),
        );
      }
    };
    const mine = new Set<string>();
    const made = (at: string, response: Awaited<ReturnType<World['send']>>, what: string) => {
      const sent = expectCreated(at, response, what);
      mine.add(sent.id);
      return sent;
    };

    const sent = made(
      '4.10-R1',
      await w.send({
        from: box0,
        to: box1,
        subject: w.subject('Five files'),
        text: 'All five attached.',
        attachmentIds: all.map((n) => ids.get(n)!),
      }),
      'the send',
    );
    await expectFiles('4.10-R1', await w.get(sent.id), all, 'the sent copy');
    const received = await w.delivered(box1, '4.10-R1');
    await expectFiles('4.10-R1', received, all, 'the received copy');

    // A reply reusing every upload, already used by the send, in another order (§2.4: reusable
    // across sends, replies and forwards).
    const reply = made(
      '4.7-R3',
      await w.reply(received.id, {
        text: 'The same files back.',
        attachmentIds: [...all].reverse().map((n) => ids.get(n)!),
      }),
      'the reply',
    );
    await expectFiles('4.7-R3', await w.get(reply.id, '4.7-R3'), all, 'the reply');
    const replyReceived = await arrived(w, box0, reply.subject, mine, '4.7-R3');
    await expectFiles('4.7-R3', replyReceived, all, 'the reply as received');

    // A forward of the reply with no attachmentIds carries the reply's own files (§4.8).
    const carried = made(
      '4.8-R2',
      await w.forward(replyReceived.id, { to: box1 }),
      'the forward of the files',
    );
    await expectFiles('4.8-R2', await w.get(carried.id, '4.8-R2'), all, 'the forward');
    await expectFiles(
      '4.8-R2',
      await arrived(w, box1, carried.subject, mine, '4.8-R2'),
      all,
      'the forward as received',
    );

    // A forward naming two of the used uploads carries those two only (§4.8: attachmentIds).
    const chosen = ['report.pdf', 'one.bin'];
    const picked = made(
      '4.8-R3',
      await w.forward(replyReceived.id, {
        to: box1,
        subject: w.subject('Two of the files'),
        attachmentIds: chosen.map((n) => ids.get(n)!),
      }),
      'the forward of two uploads',
    );
    await expectFiles('4.8-R3', await w.get(picked.id, '4.8-R3'), chosen, 'the two-file forward');
    await expectFiles(
      '4.8-R3',
      await arrived(w, box1, w.subject('Two of the files'), mine, '4.8-R3'),
      chosen,
      'the two-file forward as received',
    );
  },
  { needs: ['mail', 'destructive'], timeout: 120_000, concurrent: true },
);

rule(
  ['8-R4', '8-R5', '8-R6', 'D-12', 'D-41', 'D-42', 'D-63'],
  "holds replies and forwards to 20 files, 3 MiB of raw attachment data and a 5 MiB message, a forward counting the original's files it carries",
  async (context) => {
    const w = await world(context, { rule: '8-R4' });
    const [box0, box1] = w.box as [string, string];
    expectCreated(
      '8-R4',
      await w.send({ from: box1, to: box0, subject: w.subject('Limits'), text: 'Answer me.' }),
      'the email to answer',
    );
    const original = await w.delivered(box0, '8-R4');
    const ops = {
      reply: (attachmentIds: string[], extra: object = {}) =>
        w.reply(original.id, { text: 'x', attachmentIds, ...extra }),
      forward: (attachmentIds: string[], extra: object = {}) =>
        w.forward(original.id, { to: box1, text: 'x', attachmentIds, ...extra }),
    };
    const ids = await smallUploads(w, 21, '8-R4');
    const big = await w.upload('big.bin', randomBytes(2 * MIB), 'application/octet-stream', '8-R5');
    const exact = await w.upload('exact.bin', randomBytes(MIB), 'application/octet-stream', '8-R5');
    const over = await w.upload(
      'over.bin',
      randomBytes(MIB + 1),
      'application/octet-stream',
      '8-R5',
    );
    // Lines of 70 characters: whatever the encoding, more than 5 MiB of body is a message above
    // 5 MiB (§8), with no file at all.
    const huge = `${'x'.repeat(69)}\n`.repeat(Math.ceil((5 * MIB + 1) / 70));
    for (const [op, call] of Object.entries(ops)) {
      expectSuccess('8-R4', await call(ids.slice(0, 20)), `${op} with 20 files`);
      expectError(
        ['8-R4', 'D-12'],
        await call(ids),
        400,
        'too_many_attachments',
        'attachmentIds',
        `${op} with 21 files`,
      );
      expectSuccess('8-R5', await call([big.id, exact.id]), `${op} with exactly 3 MiB`);
      expectError(
        ['8-R5', 'D-41'],
        await call([big.id, over.id]),
        400,
        'attachments_too_large',
        undefined,
        `${op} with 3 MiB + 1 byte`,
      );
      expectError(
        ['8-R6', 'D-42'],
        await call([], { text: huge }),
        400,
        'message_too_large',
        undefined,
        `${op} of a body over 5 MiB`,
      );
    }
    // D-63: the files a forward carries from its original count. Only a control plane can
    // place an original over a limit (sent mail is held to the limits itself).
    if (w.apiWorld) {
      context.unchecked(['D-63'], ['crafted-mail']);
      return;
    }
    const many = await w.inject({
      mailbox: box0,
      from: 'Bob Stone <bob@partner.test>',
      to: [box0],
      subject: w.subject('Many files'),
      text: '21 files.',
      attachments: Array.from({ length: 21 }, (_, i) => ({
        name: `p${i}.txt`,
        contentType: 'text/plain',
        contentBase64: Buffer.from(`page ${i}`).toString('base64'),
      })),
    });
    const heavy = await w.inject({
      mailbox: box0,
      from: 'Bob Stone <bob@partner.test>',
      to: [box0],
      subject: w.subject('Heavy files'),
      text: 'Over 3 MiB.',
      attachments: [2 * MIB, MIB + 1].map((size, i) => ({
        name: `scan${i}.bin`,
        contentType: 'application/octet-stream',
        contentBase64: randomBytes(size).toString('base64'),
      })),
    });
    expectError(
      'D-63',
      await w.forward(many, { to: box1 }),
      400,
      'too_many_attachments',
      'attachmentIds',
      "a forward carrying the original's 21 files",
    );
    expectError(
      'D-63',
      await w.forward(heavy, { to: box1 }),
      400,
      'attachments_too_large',
      'attachmentIds',
      "a forward carrying the original's 3 MiB + 1 byte",
    );
    // Naming the files it carries (none, or some) lets the same forward through.
    expectSuccess('D-63', await w.forward(many, { to: box1, attachmentIds: [] }), 'with none');
    expectSuccess(
      'D-63',
      await w.forward(heavy, { to: box1, attachmentIds: [exact.id] }),
      'with one upload instead',
    );
  },
  { needs: ['mail', 'destructive'], timeout: 120_000, concurrent: true },
);

rule(
  ['8-R9', '2.4-R3'],
  'takes a file too large to attach in the body as its url: the message is sent, and the url in the received copy serves the file without a key',
  async (context) => {
    const w = await world(context, { rule: '8-R9' });
    const [box0, box1] = w.box as [string, string];
    const bytes = randomBytes(3 * MIB + 1);
    const response = await w.api.request({
      method: 'POST',
      path: '/attachments',
      body: (() => {
        const form = new FormData();
        form.append('file', new Blob([bytes], { type: 'application/zip' }), 'archive.zip');
        return form;
      })(),
      apiKey: w.apiKey,
    });
    expectSuccess('8-R9', response, 'upload of a file over 3 MiB');
    const file = response.json<{ url: string }>();
    expectAt('2.4-R3', new URL(file.url).origin, 'the URL is under the deployment').toBe(
      context.target.origin,
    );
    const text = `The archive is too large to attach: ${file.url}`;
    expectCreated(
      '8-R9',
      await w.send({ from: box0, to: box1, subject: w.subject('Archive'), text }),
      'the url in the body',
    );
    const received = await w.delivered(box1, '8-R9');
    expectAt('8-R9', received.text ?? '', 'the received copy carries the url').toContain(file.url);
    const served = await w.api.request({ path: file.url, absolute: true });
    expectAt('8-R9', served.status, 'the url serves the file without a key').toBe(200);
    expectAt('8-R9', sha256(served.bytes), 'the whole file').toBe(sha256(bytes));
  },
  { needs: ['mail', 'destructive'], timeout: 60_000, concurrent: true },
);

rule(
  ['D-64', '4.3-R13'],
  'attaches an upload listed twice as two attachments with ids of their own, counted twice toward 20 files and 3 MiB',
  async (context) => {
    const w = await world(context, { rule: 'D-64' });
    const [box0, box1] = w.box as [string, string];
    const send = (attachmentIds: string[]) =>
      w.send({ from: box0, to: box1, subject: w.subject('Twice'), text: 'x', attachmentIds });
    const bytes = randomBytes(300);
    const file = await w.upload('twice.txt', bytes, 'text/plain', '4.3-R13');
    const sent = expectCreated(
      '4.3-R13',
      await send([file.id, file.id]),
      'one upload listed twice',
    );
    const detail = await w.get(sent.id, '4.3-R13');
    expectAt(
      'D-64',
      detail.attachments.map((a) => a.name),
      'two attachments',
    ).toEqual(['twice.txt', 'twice.txt']);
    expectAt('D-64', new Set(detail.attachments.map((a) => a.id)).size, 'ids of their own').toBe(2);
    for (const attachment of detail.attachments)
      expectAt(
        '4.3-R13',
        sha256(await w.download(attachment.id, '4.3-R13')),
        'each copy downloads as the upload',
      ).toBe(sha256(bytes));
    await w.listed(box1); // the delivered copy arrives before what follows is counted
    const before = (await w.everything()).emails.length;
    // Counted twice: ten files listed twice are 20; one more entry is 21.
    const ten = await smallUploads(w, 10, 'D-64');
    expectSuccess('D-64', await send([...ten, ...ten]), 'ten files listed twice (20)');
    expectError(
      'D-64',
      await send([...ten, ...ten, ten[0]!]),
      400,
      'too_many_attachments',
      'attachmentIds',
      'ten files listed twice and one a third time (21)',
    );
    const half = await w.upload(
      'half.bin',
      randomBytes(1.5 * MIB),
      'application/octet-stream',
      'D-64',
    );
    const overHalf = await w.upload(
      'over-half.bin',
      randomBytes(1.5 * MIB + 1),
      'application/octet-stream',
      'D-64',
    );
    expectSuccess('D-64', await send([half.id, half.id]), '1.5 MiB twice (3 MiB)');
    expectError(
      'D-64',
      await send([overHalf.id, overHalf.id]),
      400,
      'attachments_too_large',
      undefined,
      '1.5 MiB + 1 byte twice',
    );
    // Two accepted sends, each a sent copy and a delivered one; the refusals stored nothing.
    expectAt('D-64', (await w.everything()).emails.length, 'only the accepted sends stored').toBe(
      before + 4,
    );
  },
  { needs: ['mail', 'destructive'], timeout: 60_000, concurrent: true },
);

// Alone, after the checks that run side by side: a 5 MiB message measured on the .eml sent.
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
      w.send({ from: w.box[0], to: external('limit'), subject: w.subject('Files'), text });
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

// Alone: it counts the files the target stores, which every check's uploads add to.
rule(
  ['2.4-R4'],
  "stores an upload's file once: sends, replies and forwards reusing it add no stored file and no byte",
  async (context) => {
    const w = await world(context, { rule: '2.4-R4' });
    const [box0, box1] = w.box as [string, string];
    const { target } = context;
    /** The control plane's storage figure (spec/control.yaml, GET /storage). */
    const storage = async () => {
      const response = await w.api.request({
        path: `${target.control!.baseUrl}/storage`,
        absolute: true,
        headers: { Authorization: `Bearer ${target.control!.token}` },
      });
      expectAt('2.4-R4', response.status, 'GET /storage').toBe(200);
      return response.json<{ files: number; bytes: number }>();
    };
    const before = await storage();
    const size = 100_000;
    const file = await w.upload('contract.pdf', randomBytes(size), 'application/pdf', '2.4-R4');
    const uploaded = await storage();
    // The figure does move: the upload is one file more, of its size.
    expectAt('2.4-R4', uploaded, 'the upload is stored').toEqual({
      files: before.files + 1,
      bytes: before.bytes + size,
    });
    // Reused: in two sends (a copy for each mailbox), twice in one message, in a reply, and in
    // forwards with and without attachmentIds.
    for (const attachmentIds of [[file.id], [file.id, file.id]])
      expectSuccess(
        '2.4-R4',
        await w.send({
          from: box0,
          to: box1,
          subject: w.subject('Contract'),
          text: 'x',
          attachmentIds,
        }),
        `a send of ${attachmentIds.length}`,
      );
    const received = (await w.listed(box1))[0]!;
    expectSuccess(
      '2.4-R4',
      await w.reply(received.id, { text: 'Signed.', attachmentIds: [file.id] }),
      'a reply',
    );
    expectSuccess('2.4-R4', await w.forward(received.id, { to: box0 }), 'a forward');
    expectSuccess(
      '2.4-R4',
      await w.forward(received.id, { to: box0, attachmentIds: [file.id] }),
      'a forward naming the upload',
    );
    expectAt('2.4-R4', await storage(), 'nothing uploaded or copied again').toEqual(uploaded);
  },
  // The figure is the control plane's: through the API alone no copy can be seen.
  { needs: ['provisioning', 'mail', 'destructive'] },
);

// Alone: it moves the target's clock, which every check shares.
rule(
  ['2.4-R3', '2.4-R1'],
  "keeps an upload's public url and its id working more than a year later: nothing expires them",
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const bytes = randomBytes(2048);
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'kept.pdf');
    const response = await api.request({
      method: 'POST',
      path: '/attachments',
      body: form,
      apiKey: tenant.key.secret,
    });
    expectSuccess('2.4-R3', response, 'the upload');
    const file = response.json<{ id: string; url: string }>();
    // §2.4: the url "does not currently expire automatically"; the upload ID is "reusable".
    await control.advanceClock(400 * 24 * 3_600_000);
    const served = await api.request({ path: file.url, absolute: true });
    expectAt('2.4-R3', served.status, 'the url 400 days later').toBe(200);
    expectAt('2.4-R3', sha256(served.bytes), 'the url serves the uploaded bytes').toBe(
      sha256(bytes),
    );
    const byId = await api.request({
      path: `/attachments/${encodeURIComponent(file.id)}`,
      apiKey: tenant.key.secret,
    });
    expectAt('2.4-R1', byId.status, 'the upload id 400 days later').toBe(200);
    expectAt('2.4-R1', sha256(byId.bytes), 'the id serves the uploaded bytes').toBe(sha256(bytes));
  },
  { needs: ['provisioning', 'clock', 'destructive'] },
);
