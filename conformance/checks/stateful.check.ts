/**
 * Model-based: any sequence of send, list, get, patch, delete, reply, forward, upload and download
 * leaves the mailbox exactly as a simple model says (lists, flags, folders, pagination order
 * and attachment bytes). Needs only an API key and one mailbox it may write to (`mail`), so it runs
 * against live deployments too (give --mailbox and --destructive).
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { MissingCapability, rule } from '../src/check-runner/check.ts';
import { ControlClient, createTenant } from '../src/client/control-client.ts';
import { MailWatch } from '../src/worlds/mail-watch.ts';
import { checkDecided, emptyModel, type Real } from '../src/model/mailbox-model.ts';
import { mailboxSequences, sequenceOf } from '../src/model/mailbox-sequences.ts';
import { MailboxArrivals } from '../src/model/arrivals.ts';

/** Sequences run at once against a live deployment (property.ts runs them side by side). */
const SEQUENCES_AT_ONCE = 25;

rule(
  [
    '4.2-R12',
    '4.2-R13',
    '4.3-R5',
    '3.1-R1',
    '3.1-R3',
    '3.1-R4',
    '4.4-R2',
    '4.5-R1',
    '4.6-R1',
    '4.7-R1',
    '4.8-R2',
    '4.10-R1',
    '2.4-R5',
    '1-R5',
    '2.3-R2',
    '4.4-R1',
    '4.9-R2',
    'D-48',
    'D-12',
    'D-17',
    'D-20',
    'D-21',
    'D-22',
    'D-23',
  ],
  'agrees with a model of the mailbox after any sequence of operations',
  async ({ api, target, run, property, cleanup }) => {
    let mailbox: string;
    let apiKey: string;
    if (target.control !== undefined) {
      const tenant = await createTenant(new ControlClient(api, target.control));
      [mailbox, apiKey] = [tenant.mailboxes[0]!, tenant.key.secret];
    } else {
      const given = run.target.kind === 'live' ? run.target.mailboxes[0] : undefined;
      if (given === undefined || target.apiKey === undefined)
        throw new MissingCapability('needs a mailbox it may write to (give --mailbox)');
      [mailbox, apiKey] = [given, target.apiKey];
      // The mailbox is the target's own: leave it as it was found (mail-watch.ts).
      // The model awaits each copy itself (and may delete it before the watch lists it).
      const watch = new MailWatch(api, apiKey, [mailbox], target.deliveryTimeoutMs, false);
      await watch.start();
      cleanup(() => watch.removeAll());
    }
    // Each case sees only its own tagged mail, so against a deployment whose mail takes its
    // time the cases wait for it side by side, not one after the other.
    // One watcher of the mailbox then awaits every sequence's mail at once (arrivals.ts).
    const live = target.kind === 'live';
    const concurrency = live ? SEQUENCES_AT_ONCE : 1;
    const arrivals = live
      ? new MailboxArrivals(api, apiKey, mailbox, target.deliveryTimeoutMs)
      : undefined;
    await property(
      mailboxSequences,
      async (sequence) => {
        // Each sequence marks its mail with a fresh word, so it sees only what it made.
        const real: Real = {
          api,
          apiKey,
          mailbox,
          tag: `mt${randomBytes(6).toString('hex')}`,
          deliveryTimeoutMs: target.deliveryTimeoutMs,
          ...(arrivals === undefined ? {} : { arrivals }),
        };
        const model = emptyModel();
        await fc.asyncModelRun(() => ({ model, real }), sequenceOf(sequence));
        // What only our decisions fix, after the documented rules held to the end.
        checkDecided(model);
      },
      { concurrency },
    );
  },
  { needs: ['mail', 'destructive'], timeout: 180_000 },
);
