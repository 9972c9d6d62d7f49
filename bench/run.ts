/**
 * `npm run bench`: every speed and size figure of mailtwin, printed and never asserted (timed
 * tests flake on a busy machine). Figures depend on the machine; compare runs on the same one.
 */
import { cpus } from 'node:os';
import { benchConformance } from './conformance.bench.ts';
import { benchContract } from './contract.bench.ts';
import { benchDbList, benchHttpList } from './http-list.bench.ts';
import { benchReadSide } from './read-side.bench.ts';
import { benchSendSide } from './send-side.bench.ts';
import { benchStartup } from './startup.bench.ts';
import { benchWebhooks } from './webhooks.bench.ts';

const print = (line: string) => process.stdout.write(`  ${line}\n`);

process.stdout.write(
  `mailtwin bench: Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})\n\n`,
);
process.stdout.write('Start-up (issue 18 item 2)\n');
await benchStartup(print);
process.stdout.write('\nList throughput over HTTP against its ceilings (issue 18 item 1)\n');
await benchHttpList(print);
process.stdout.write('\nA --db file at scale: deep pages and memory (issue 18 items 1 and 4)\n');
await benchDbList(print);
process.stdout.write('\nContract and docs\n');
await benchContract(print);
process.stdout.write('\nRead side (§4.2) at 100k emails in one mailbox\n');
await benchReadSide(print);
process.stdout.write('\nSend side (§4.3) and attachments (§8)\n');
await benchSendSide(print);
process.stdout.write('\nWebhooks (§6)\n');
await benchWebhooks(print);
process.stdout.write('\nThe conformance suite (in process)\n');
await benchConformance(print);
