import type { TargetConfig } from '../run/config.ts';
import { redactSecrets } from '../client/redact.ts';
import { formatCertificateJson } from './certificate.ts';
import { formatCertificateHtml } from './certificate-html.ts';
import { closingLines, formatConsoleReport } from './console.ts';
import type { RunFacts } from './facts.ts';
import { formatHtmlReport } from './html.ts';
import { formatJsonReport } from './json.ts';
import { formatJUnitReport } from './junit.ts';
import type { Summary } from './summary.ts';

/**
 * What a report is rendered as: the renderers this folder has. Each format of `--report` is one
 * or more of them (cli/main.ts REPORT_FILES: `certificate` is two files, its JSON and its HTML),
 * and `closing` is the console's closing lines alone.
 */
export type RenderedReport =
  | 'console'
  | 'junit'
  | 'json'
  | 'html'
  | 'closing'
  | 'certificate-json'
  | 'certificate-html';

type Render = (
  summary: Summary,
  facts: RunFacts,
  secrets: readonly (string | undefined)[],
) => string;

const RENDER: Record<RenderedReport, Render> = {
  console: formatConsoleReport,
  closing: (summary, facts) => `${closingLines(summary, facts).join('\n')}\n`,
  junit: formatJUnitReport,
  json: formatJsonReport,
  html: formatHtmlReport,
  // A certificate is hashed, so it masks its own text before hashing (certificate.ts).
  'certificate-json': formatCertificateJson,
  'certificate-html': formatCertificateHtml,
};

/**
 * The report boundary: every report the run prints or writes is rendered here, and leaves with
 * every secret masked (redact.ts): the run's own keys and tokens, whatever their shape, and
 * anything shaped like a key, webhook secret or control token that a failure message, a shrunk
 * case or an answer carried. Masking the finished text is what makes it hold for every format
 * and every field, the ones added later included.
 */
export function renderReport(
  format: RenderedReport,
  summary: Summary,
  facts: RunFacts,
  secrets: readonly (string | undefined)[] = [],
): string {
  return redactSecrets(RENDER[format](summary, facts, secrets), secrets);
}

/** The secrets a run was given: its API keys, control token and webhook secret. */
export function secretsOf(target: TargetConfig): string[] {
  if (target.kind !== 'live') return [];
  return [
    target.apiKey,
    target.secondApiKey,
    ...Object.values(target.keys ?? {}),
    target.control?.token,
    target.webhook?.secret,
  ].filter((s): s is string => s !== undefined);
}
