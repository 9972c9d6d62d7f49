/**
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
import { createHash, randomBytes } from 'node:crypto';
import { expectAt } from '../src/charge.ts';
import { rule } from '../src/check.ts';
import { ControlClient, createTenant } from '../src/control-client.ts';
import {
  expectCreated,
  expectError,
  expectSuccess,
  world,
  type EmailDetail,
  type World,
} from '../src/send-world.ts';

const MIB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

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
        subject: 'Five files',
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
        subject: 'Two of the files',
        attachmentIds: chosen.map((n) => ids.get(n)!),
      }),
      'the forward of two uploads',
    );
    await expectFiles('4.8-R3', await w.get(picked.id, '4.8-R3'), chosen, 'the two-file forward');
    await expectFiles(
      '4.8-R3',
      await arrived(w, box1, 'Two of the files', mine, '4.8-R3'),
      chosen,
      'the two-file forward as received',
    );
  },
  { needs: ['mail', 'destructive'], timeout: 120_000 },
);

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
        await w.send({ from: box0, to: box1, subject: 'Contract', text: 'x', attachmentIds }),
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

rule(
  ['8-R4', '8-R5', '8-R6', 'D-12', 'D-41', 'D-42', 'D-63'],
  "holds replies and forwards to 20 files, 3 MiB of raw attachment data and a 5 MiB message, a forward counting the original's files it carries",
  async (context) => {
    const w = await world(context, { rule: '8-R4' });
    const [box0, box1] = w.box as [string, string];
    expectCreated(
      '8-R4',
      await w.send({ from: box1, to: box0, subject: 'Limits', text: 'Answer me.' }),
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
      subject: 'Many files',
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
      subject: 'Heavy files',
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
  { needs: ['mail', 'destructive'], timeout: 120_000 },
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
      await w.send({ from: box0, to: box1, subject: 'Archive', text }),
      'the url in the body',
    );
    const received = await w.delivered(box1, '8-R9');
    expectAt('8-R9', received.text ?? '', 'the received copy carries the url').toContain(file.url);
    const served = await w.api.request({ path: file.url, absolute: true });
    expectAt('8-R9', served.status, 'the url serves the file without a key').toBe(200);
    expectAt('8-R9', sha256(served.bytes), 'the whole file').toBe(sha256(bytes));
  },
  { needs: ['mail', 'destructive'], timeout: 60_000 },
);

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

rule(
  ['D-64', '4.3-R13'],
  'attaches an upload listed twice as two attachments with ids of their own, counted twice toward 20 files and 3 MiB',
  async (context) => {
    const w = await world(context, { rule: 'D-64' });
    const [box0, box1] = w.box as [string, string];
    const send = (attachmentIds: string[]) =>
      w.send({ from: box0, to: box1, subject: 'Twice', text: 'x', attachmentIds });
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
  { needs: ['mail', 'destructive'], timeout: 60_000 },
);
