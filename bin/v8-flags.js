// V8 settings the emulator's process runs with, set by bin/mailtwin.js before the emulator
// loads. Set from inside the process (v8.setFlagsFromString): no wrapper process, and no
// `#!/usr/bin/env -S node …` shebang (npm's bin shims and some `env`s do not pass it on).
import { setFlagsFromString } from 'node:v8';

/**
 * `--no-allocation-site-pretenuring` (issue 31 item 2). V8 allocates the objects of an
 * allocation site straight into the old generation once it sees them all survive a scavenge.
 * Parsing mail with mailparser trips this: sites of its per-message stream state are
 * pretenured, and their old objects, dead a moment later, keep the young objects they point to
 * alive through every scavenge until a full collection (a scavenge does not look at whether an
 * old object is alive), so those are copied and promoted in turn. Measured over 4,000 parses
 * of a 2 KB message, one at a time: promoted 58 MB -> 9 MB, scavenges 353 -> 98 ms, CPU a
 * parse 0.38-0.50 -> 0.26-0.27 ms; over SMTP (`npm run bench -- smtp`, A/B alternated four
 * times on a loaded machine), the emulator's CPU a message 1.25 -> 1.13 ms, page faults 7.6 ->
 * 6.4. Nothing else changes: the flag only decides where V8 first puts an object.
 */
export const V8_FLAGS = ['--no-allocation-site-pretenuring'];

/** Sets `V8_FLAGS` in this process; call it before loading what they concern. */
export function applyV8Flags() {
  for (const flag of V8_FLAGS) setFlagsFromString(flag);
}
