// One test worker's day, the same under vitest and jest (docs/testing-kit.md): a tenant of its
// own, mail inside it and to an outside address every worker writes to, then everything the
// tenant can see, counted against its own tag. Another tenant's mail showing up is a sighting.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs one worker against the emulator `mailtwin` connects to; resolves with what it saw. */
export async function worker(mailtwin, n) {
  const started = performance.now();
  const tenant = await mailtwin.createTenant({ name: `worker ${n}` });
  const createdMs = performance.now() - started;
  try {
    const tag = tenant.id;
    const waiting = tenant.waitForMail(
      { mailbox: tenant.mailboxes[1], subject: tag },
      { timeoutMs: 60_000 },
    );
    await tenant.send({
      to: tenant.mailboxes[1],
      cc: ['customer@example.com'],
      subject: `Welcome ${tag}`,
      text: `Your code is ${n}`,
    });
    const sentAt = performance.now();
    const [mail] = await waiting;
    const waitedMs = performance.now() - sentAt;
    const [captured] = await tenant.waitForOutbox({ to: 'customer@example.com' });
    const seen = [];
    for (const { address } of await tenant.api('GET', '/mailboxes')) {
      const page = await tenant.api('GET', `/emails?mailbox=${encodeURIComponent(address)}`);
      seen.push(...page.emails.map((email) => email.subject));
    }
    seen.push(...(await tenant.readOutbox()).entries.map((entry) => entry.subject));
    const result = {
      worker: n,
      pid: process.pid,
      tenant: tag,
      mail: mail.subject,
      captured: captured.subject,
      seen: seen.length,
      sightings: seen.filter((subject) => !subject.includes(tag)).length,
      createdMs,
      waitedMs,
    };
    // The recipes test collects every worker's result from here.
    if (process.env.MAILTWIN_KIT_RESULTS !== undefined) {
      writeFileSync(join(process.env.MAILTWIN_KIT_RESULTS, `${n}.json`), JSON.stringify(result));
    }
    return result;
  } finally {
    await tenant.delete();
  }
}
