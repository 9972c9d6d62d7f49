/**
 * A render thread (render-pool.ts): renders one body at a time off the main thread, so a large
 * or slow body never holds the event loop that answers every other request.
 */
import { parentPort } from 'node:worker_threads';
import { renderBody, type BodyJob } from './render-body.ts';

/** What the pool posts, and what it gets back for the same id. */
export interface RenderRequest {
  id: number;
  job: BodyJob;
}
export type RenderReply =
  { id: number; result: Awaited<ReturnType<typeof renderBody>> } | { id: number; error: string };

const port = parentPort;
if (port !== null) {
  port.on('message', ({ id, job }: RenderRequest) => {
    renderBody(job).then(
      (result) => port.postMessage({ id, result } satisfies RenderReply),
      (error: unknown) =>
        port.postMessage({
          id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies RenderReply),
    );
  });
}
