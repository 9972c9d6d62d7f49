import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  boxesOf,
  renderBody,
  type BodyJob,
  type BodyResult,
  type LargeBytes,
  type Templated,
} from './render-body.ts';
import type { PackedResult, RenameTask, RenderReply, RenderRequest } from './render-worker.ts';
import type { Prepared } from '../http/prepare-request.ts';
import type { Binding, OperationName } from '../binding/binding.ts';
import type { RenamedBytes } from '../binding/rename-bytes.ts';
import type { ParsedMessage } from './parse-message.ts';
import { unpackParsed, type PackedMessage } from './parse-off-thread.ts';

/**
 * Bodies up to this many characters once filled in (and messages with up to INLINE_ATTACHMENT
 * bytes of files) render on the main thread: a worker's round trip would cost more than the
 * rendering. Measured on this machine, the slowest Markdown of this size (a table, whose text
 * part html-to-text lays out in more than linear time) renders in about 10 ms.
 */
export const INLINE_CHARACTERS = 4 * 1024;
const INLINE_ATTACHMENT_BYTES = 64 * 1024;

/**
 * How long one render may hold a thread before the thread is ended and replaced. The slowest
 * legitimate body measured (3 MB of inline Markdown tags: every stage costs per tag) renders in
 * about 10 s on an idle 2-core machine and 27 s under load; a body past a minute is refused
 * rather than left to occupy one of the two threads for good.
 */
export const RENDER_BUDGET_MS = 60_000;

/** A render that ran past the budget; its thread was ended. Answered 400 `body_too_complex`. */
export class RenderTimeout extends Error {
  constructor(readonly budgetMs: number) {
    super(`the body took longer than ${budgetMs} ms to render`);
    this.name = 'RenderTimeout';
  }
}

/** Renders message bodies (render-body.ts); where it does so is its own affair. */
export interface BodyRenderer {
  render(job: BodyJob): Promise<BodyResult>;
  /**
   * Parses and validates a large request's bytes off the calling thread (prepare-request.ts).
   * A renderer without it leaves large requests to be parsed where they arrive.
   */
  parse?(schemaName: string, bytes: Uint8Array): Promise<Prepared>;
  /**
   * Parses a large raw message received (mime/parse-message.ts) off the calling thread. A
   * renderer without it leaves raw messages to be parsed where they arrive.
   */
  parseMessage?(raw: Uint8Array): Promise<ParsedMessage>;
  /** Ends its threads; a render asked for later starts them again. */
  close(): Promise<void>;
}

/** What a thread is asked: a body to render, a request to parse, or one to rename. */
type Task =
  | { job: BodyJob }
  | { parse: { schemaName: string; bytes: Uint8Array } }
  | { rename: RenameTask }
  | { message: Uint8Array };

interface Pending {
  task: Task;
  resolve: (result: BodyResult | Prepared | RenamedBytes | PackedMessage) => void;
  reject: (error: Error) => void;
  /** Ends the render's thread once it has run past the budget. */
  timer: NodeJS.Timeout;
}

interface Thread {
  worker: Worker;
  /** The renders posted to it and not yet answered. */
  held: Set<number>;
}

/**
 * Renders small bodies at once on the calling thread and large ones on up to `size` worker
 * threads, so no single send holds the event loop for longer than a small body takes: a 12 MB
 * Markdown body used to hold every other request for tens of seconds. Threads start with the
 * first large body (start-up never waits for them), never keep the process alive, and a thread
 * that dies fails only the renders it held. A render that runs past `budgetMs` is refused with
 * RenderTimeout and its thread is ended (a synchronous render cannot be interrupted any other
 * way); the other renders it held are posted again to a thread that works.
 */
export class RenderPool implements BodyRenderer {
  private readonly threads: Thread[] = [];
  private readonly pending = new Map<number, Pending>();
  /** The boxes of large bodies whose bytes a thread holds, by render id. */
  private readonly lent = new Map<number, LargeBytes[]>();
  private nextId = 0;

  constructor(
    private readonly size = 2,
    private readonly inlineCharacters = INLINE_CHARACTERS,
    private readonly budgetMs = RENDER_BUDGET_MS,
  ) {}

  render(job: BodyJob): Promise<BodyResult> {
    if (weightOf(job) <= this.inlineCharacters && attachmentBytes(job) <= INLINE_ATTACHMENT_BYTES)
      return renderBody(job);
    return this.offload(job);
  }

  /** How many worker threads are running (0 until the first large body). */
  get threadCount(): number {
    return this.threads.length;
  }

  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  /**
   * Always on a thread. The bytes are moved to it, not copied (copying 24 MB into a message
   * held the event loop 466 ms): `bytes` is empty afterwards.
   */
  parse(schemaName: string, bytes: Uint8Array): Promise<Prepared> {
    // A view of part of a buffer (Node's pool) is copied first: only a whole buffer can move.
    const own = bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    return new Promise<Prepared>((resolve, reject) =>
      this.post({ parse: { schemaName, bytes: own } }, resolve as Pending['resolve'], reject),
    );
  }

  /**
   * Renames a large request body from `binding`'s names into the emulator's (the dialect,
   * binding/dialect.ts), on a thread; the bytes are moved there and back, as for parse.
   */
  rename(operation: OperationName, bytes: Uint8Array, binding: Binding): Promise<RenamedBytes> {
    const own = bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    return new Promise<RenamedBytes>((resolve, reject) =>
      this.post(
        { rename: { operation, bytes: own, binding } },
        resolve as Pending['resolve'],
        reject,
      ),
    );
  }

  /** A raw message parsed on a thread; its bytes are moved there and back, as for parse. */
  async parseMessage(raw: Uint8Array): Promise<ParsedMessage> {
    const own = raw.byteLength === raw.buffer.byteLength ? raw : new Uint8Array(raw);
    const packed = await new Promise<PackedMessage>((resolve, reject) =>
      this.post({ message: own }, resolve as Pending['resolve'], reject),
    );
    return unpackParsed(packed);
  }

  private offload(job: BodyJob): Promise<BodyResult> {
    return new Promise<BodyResult>((resolve, reject) =>
      this.post({ job }, resolve as Pending['resolve'], reject),
    );
  }

  private post(task: Task, resolve: Pending['resolve'], reject: Pending['reject']): void {
    const thread = this.leastBusy();
    const id = this.nextId++;
    // A parse takes time in proportion to the body's bytes, which the request limit bounds:
    // only renders, whose cost the body's content decides, have a budget.
    const timer = setTimeout(() => 'job' in task && this.overrun(thread, id), this.budgetMs);
    timer.unref();
    this.pending.set(id, { task, resolve, reject, timer });
    thread.held.add(id);
    const moved =
      'parse' in task
        ? task.parse.bytes
        : 'rename' in task
          ? task.rename.bytes
          : 'message' in task
            ? task.message
            : null;
    if (moved !== null && moved.byteLength === 0 && moved.buffer.byteLength === 0) {
      // Posted again after its thread was ended: its bytes went with that thread.
      this.take(id)?.reject(new Error('render thread ended while it held a request to parse'));
      thread.held.delete(id);
      return;
    }
    const boxes = 'job' in task ? boxesOf(task.job) : [];
    if (boxes.some((box) => box.bytes.buffer.byteLength === 0)) {
      // Posted again after its thread was ended: its bytes went with that thread.
      this.take(id)?.reject(new Error('render thread ended while it held the body to render'));
      thread.held.delete(id);
      return;
    }
    const transfer =
      moved !== null
        ? [moved.buffer as ArrayBuffer]
        : boxes.map((box) => box.bytes.buffer as ArrayBuffer);
    this.lent.set(id, boxes);
    thread.worker.postMessage({ id, ...task } satisfies RenderRequest, transfer);
  }

  /** The render `id` ran past the budget: refuse it, end its thread, repost the others it held. */
  private overrun(thread: Thread, id: number): void {
    const index = this.threads.indexOf(thread);
    if (index !== -1) this.threads.splice(index, 1);
    const held = [...thread.held];
    thread.held.clear();
    for (const heldId of held) {
      const pending = this.take(heldId);
      if (pending === undefined) continue;
      if (heldId === id) pending.reject(new RenderTimeout(this.budgetMs));
      else this.post(pending.task, pending.resolve, pending.reject);
    }
    void thread.worker.terminate();
  }

  private take(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    if (pending !== undefined) clearTimeout(pending.timer);
    return pending;
  }

  private leastBusy(): Thread {
    const idle = this.threads.find((t) => t.held.size === 0);
    if (idle !== undefined) return idle;
    if (this.threads.length < this.size) return this.start();
    return this.threads.reduce((a, b) => (b.held.size < a.held.size ? b : a));
  }

  private start(): Thread {
    const worker = startWorker();
    worker.unref(); // a render in progress is held by the request waiting for it, not by this
    const thread: Thread = { worker, held: new Set() };
    const { held } = thread;
    worker.on('message', (reply: RenderReply) => {
      // The body's bytes come back with every answer, to the boxes they were lent from.
      const boxes = this.lent.get(reply.id) ?? [];
      this.lent.delete(reply.id);
      if ('returned' in reply)
        reply.returned?.forEach((bytes, i) => {
          const box = boxes[i];
          if (box !== undefined) box.bytes = bytes;
        });
      const pending = this.take(reply.id);
      held.delete(reply.id);
      if (pending === undefined) return;
      if ('error' in reply) pending.reject(new Error(`render thread: ${reply.error}`));
      else if ('prepared' in reply) pending.resolve(reply.prepared);
      else if ('renamed' in reply) pending.resolve(reply.renamed);
      else if ('message' in reply) pending.resolve(reply.message);
      else pending.resolve(revive(reply.result));
    });
    const fail = (error: Error) => {
      const index = this.threads.indexOf(thread);
      if (index !== -1) this.threads.splice(index, 1);
      for (const id of held) this.take(id)?.reject(error);
      held.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`render thread exited with code ${code}`)));
    this.threads.push(thread);
    return thread;
  }
}

/** What a render is likely to cost: the characters of its body once filled in. */
function weightOf(job: BodyJob): number {
  const filled = (part: Templated | string | null) =>
    part === null ? 0 : typeof part === 'string' ? part.length : boundOfFilled(part);
  const html =
    job.html === null ? 0 : typeof job.html === 'string' ? job.html.length : job.html.bytes.length;
  return filled(job.markdown) + filled(job.text) + html + filled(job.preheader);
}

/**
 * An upper bound of a template's length once filled in, in time independent of its size for
 * small templates: each `{{` may become the longest value. (A large template is offloaded
 * whatever its placeholders.)
 */
function boundOfFilled({ template, values }: Templated): number {
  if (typeof template !== 'string') return template.bytes.length;
  if (template.length > INLINE_CHARACTERS * 4) return template.length;
  let longest = 0;
  for (const value of Object.values(values)) longest = Math.max(longest, String(value).length);
  let openings = 0;
  for (let i = template.indexOf('{{'); i !== -1; i = template.indexOf('{{', i + 2)) openings += 1;
  return template.length + openings * longest;
}

function attachmentBytes(job: BodyJob): number {
  return job.message.attachments.reduce((sum, a) => sum + a.bytes.length, 0);
}

/**
 * A rendered body's parts arrive as bytes, decoded here (a few milliseconds for the 5 MiB a
 * message may have); the message's bytes as a Buffer, as from composeMime.
 */
function revive(result: PackedResult): BodyResult {
  if (!result.ok) return result;
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // a part may begin with U+FEFF
  const text = (part: Uint8Array | null) => (part === null ? null : decoder.decode(part));
  const raw = result.raw;
  const textPart = text(result.text);
  return {
    ok: true,
    preheader: text(result.preheader),
    text: textPart,
    html: text(result.html),
    plain: result.plainIsText ? textPart : text(result.plain),
    raw: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength),
  };
}

/**
 * The worker runs the module beside this one with this module's own extension: the compiled
 * `.js` (dist/, or the start-up bundle, which keeps each module's own URL), or from the
 * sources the `.ts`, loaded through tsx, as the sources always run.
 */
function startWorker(): Worker {
  const here = import.meta.url;
  const extension = extname(fileURLToPath(here));
  const entry = new URL(`./render-worker${extension}`, here);
  if (extension === '.js') return new Worker(entry);
  // The ES module of tsx's API (its CommonJS twin cannot register hooks from a worker).
  const tsx = createRequire(here)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const boot = [
    `const { register } = await import(${JSON.stringify(pathToFileURL(tsx).href)});`,
    'register();',
    `await import(${JSON.stringify(entry.href)});`,
  ].join('\n');
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`));
}

/** The renderer of sends that were given none: one per process, its threads started lazily. */
export const sharedRenderPool = new RenderPool();
