import type { Folder } from './domain/types.ts';

/** One webhook POST as it went out and what came back, kept only in memory (never stored). */
export interface WebhookExchange {
  request: { url: string; headers: Record<string, string>; body: string };
  /** null when no answer came (refused, timed out, blocked by the endpoint guard). */
  response: { status: number; body: string | null } | null;
}

/** What happened inside the emulator, for the dashboard's live updates and the request log. */
export type EmulatorEvent =
  | { type: 'email.stored'; emailId: string; mailbox: string; folder: Folder }
  /** A stored email's folder, read or starred flag changed (PATCH): waits may match it now. */
  | { type: 'email.updated'; emailId: string; mailbox: string }
  | {
      type: 'webhook.attempt';
      webhookId: string;
      deliveryId: string;
      event: string;
      number: number;
      ok: boolean;
      statusCode: number | null;
      error: string | null;
      latencyMs: number;
      exchange: WebhookExchange;
    }
  /** `mailtwin serve` is stopping: long-lived listeners (event streams) end now. */
  | { type: 'emulator.stopping' };

export type EmulatorListener = (event: EmulatorEvent) => void;

/**
 * A tiny publish/subscribe bus, one per emulator instance: made by the composition root
 * (app.ts defaultDeps) and injected as AppDeps.events, so two apps in one process (tests) never
 * hear each other. Listeners run in a microtask, after the publisher's synchronous work: a
 * publish made inside a store transaction reaches listeners only once it committed or threw,
 * so a listener that reads the store back sees what really happened.
 */
export class EmulatorEvents {
  private readonly listeners = new Set<EmulatorListener>();

  publish(event: EmulatorEvent): void {
    if (this.listeners.size === 0) return;
    queueMicrotask(() => {
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch {
          // One broken listener (a closed SSE stream) must not stop the others or the publisher.
        }
      }
    });
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: EmulatorListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
