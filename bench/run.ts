/**
 * `npm run bench`: every speed and size figure of mailtwin, printed and never asserted (timed
 * tests flake on a busy machine). Figures depend on the machine; compare runs on the same one.
 */
import { cpus } from 'node:os';
import { benchConformance } from './conformance.bench.ts';
import { benchContract } from './contract.bench.ts';
import { benchDbList, benchHttpList } from './http-list.bench.ts';
import { benchMix } from './mix.bench.ts';
import { benchSmtp } from './smtp.bench.ts';
import { benchReadSide } from './read-side.bench.ts';
import { benchSendSide } from './send-side.bench.ts';
import { benchStall } from './stall.bench.ts';
import { benchStartup } from './startup.bench.ts';
import { benchWebhooks } from './webhooks.bench.ts';
import { benchTenants } from './tenants.bench.ts';

const print = (line: string) => process.stdout.write(`  ${line}\n`);

/** Every section, in the order printed; `npm run bench -- read send` runs only those named. */
const SECTIONS: [
  name: string,
  title: string,
  run: (print: (line: string) => void) => Promise<void>,
][] = [
  ['startup', 'Start-up (issue 18 item 2)', benchStartup],
  ['list', 'List throughput over HTTP against its ceilings (issue 18 item 1)', benchHttpList],
  ['db', 'A --db file at scale: deep pages and memory (issue 18 items 1 and 4)', benchDbList],
  ['mix', 'A client-like mix against the ceiling and prism mock (issue 31 item 1)', benchMix],
  ['contract', 'Contract and docs', benchContract],
  ['read', 'Read side (§4.2) at 100k emails in one mailbox', benchReadSide],
  ['send', 'Send side (§4.3) and attachments (§8)', benchSendSide],
  ['stall', 'One large send against a concurrent GET /mailboxes (issue 27 item 1)', benchStall],
  ['webhooks', 'Webhooks (§6)', benchWebhooks],
  ['tenants', 'Tenants and waits (issue 30 items 1-2)', benchTenants],
  ['smtp', 'SMTP ingest with a pooled nodemailer client (issue 31 item 2)', benchSmtp],
  ['conformance', 'The conformance suite (in process)', benchConformance],
];
const names = SECTIONS.map(([name]) => name);
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !names.includes(name));
if (unknown.length > 0) {
  process.stderr.write(
    `npm run bench: no section ${unknown.join(', ')} (sections: ${names.join(', ')})\n`,
  );
  process.exit(2);
}

process.stdout.write(
  `mailtwin bench: Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})\n\n`,
);
for (const [i, [name, title, run]] of SECTIONS.entries()) {
  if (asked.length > 0 && !asked.includes(name)) continue;
  process.stdout.write(`${i === 0 ? '' : '\n'}${title}\n`);
  await run(print);
}
