import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { nextTurn } from './next-turn.ts';

describe('nextTurn (issue 27 item 1)', () => {
  it("lets a request that arrived during an I/O callback be read before the caller's next step", async () => {
    // A waiting request: bytes on a socket, seen only when the loop polls for I/O again.
    const order: string[] = [];
    const server = createServer((socket) =>
      socket.on('data', () => order.push('waiting request read')),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const client: Socket = createConnection(port, '127.0.0.1');
    await once(client, 'connect');
    await new Promise((resolve) => setTimeout(resolve, 20)); // the server has accepted it
    // A render thread's answer arrives as a message, handled in the loop's poll phase (as a
    // request's bytes are); the caller's next step waits for nextTurn.
    const { port1, port2 } = new MessageChannel();
    const done = new Promise<void>((resolve) => {
      port1.once('message', () => {
        client.write('GET /mailboxes');
        void nextTurn().then(() => {
          order.push('caller goes on');
          resolve();
        });
      });
    });
    port2.postMessage('parsed');
    await done;
    port1.close();
    client.destroy();
    server.close();
    expect(order).toEqual(['waiting request read', 'caller goes on']);
  });
});
