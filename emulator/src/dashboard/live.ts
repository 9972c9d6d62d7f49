import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { EmulatorEvent, EmulatorEvents } from '../events.ts';

/** How often an idle stream gets a ping, so proxies and browsers keep it open. */
const PING_MS = 15_000;

/**
 * The topics an event touches; a page lists the topics it shows (`data-live` on <body>) and
 * refreshes its `#live` region when one arrives (assets.ts, live.js).
 */
export function topicsOf(event: EmulatorEvent): string[] {
  switch (event.type) {
    case 'email.stored':
      // A sent copy may come with captured outbox messages; the outbox page listens for it.
      return [`mailbox:${event.mailbox}`, ...(event.folder === 'sent' ? ['outbox'] : [])];
    case 'email.updated':
      return [`mailbox:${event.mailbox}`];
    case 'webhook.attempt':
      return [`webhook:${event.webhookId}`, 'webhooks'];
    case 'emulator.stopping':
      return [];
  }
}

/** `GET /dashboard/events`: Server-Sent Events, one `change` event per emulator event. */
export function liveEvents(events: EmulatorEvents) {
  return (c: Context) =>
    streamSSE(c, async (stream) => {
      let id = 0;
      let stop = () => {};
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      stream.onAbort(stop);
      const unsubscribe = events.subscribe((event) => {
        // An open tab must not hold a stopping server for its grace period.
        if (event.type === 'emulator.stopping') return stop();
        void stream.writeSSE({
          event: 'change',
          id: String(++id),
          data: JSON.stringify({ type: event.type, topics: topicsOf(event) }),
        });
      });
      const ping = setInterval(() => void stream.writeSSE({ event: 'ping', data: '' }), PING_MS);
      await stream.writeSSE({ event: 'ready', data: '' });
      await stopped;
      clearInterval(ping);
      unsubscribe();
    });
}
