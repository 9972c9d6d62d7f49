import { DEFAULT_REQUEST_TIMEOUT_MS, LIVE_DEFAULT_MAX_RPS, type CliRun } from './options.ts';
import { DEFAULT_DELIVERY_TIMEOUT_MS, KEY_ROLES } from '../run/config.ts';
import { PROFILES } from '../run/profiles.ts';

/**
 * The command that re-runs `run`: every flag that changes what is checked or how, defaults
 * left out, each secret a placeholder (an environment variable the CLI reads, or
 * `<secret of --key role>`), every other value quoted for a POSIX shell.
 */
export function rerunCommand(run: CliRun): string {
  const args: string[] = ['npx mailtwin-conformance'];
  // A value starting with '-' (a negative seed) is joined with '=', or it reads as a flag.
  const flag = (name: string, value?: string) =>
    args.push(
      value === undefined ? name : `${name}${value.startsWith('-') ? '=' : ' '}${quote(value)}`,
    );
  const target = run.target;
  if (target.kind === 'live') {
    flag('--base-url', target.baseUrl);
    if (!/\/openapi\/v1$/.test(target.baseUrl)) flag('--unversioned-base-url');
    const keys = { ...target.keys };
    keys['follow-owner'] ??= target.apiKey;
    if (target.secondApiKey !== undefined) keys['other-owner'] ??= target.secondApiKey;
    for (const role of KEY_ROLES) {
      if (keys[role] === undefined) continue;
      if (role === 'follow-owner') args.push('--api-key "$MAILTWIN_API_KEY"');
      else if (role === 'other-owner') args.push('--second-api-key "$MAILTWIN_SECOND_API_KEY"');
      else flag('--key', `${role}=<secret of --key ${role}>`);
    }
    for (const mailbox of target.mailboxes) flag('--mailbox', mailbox);
    if (target.destructive) flag('--destructive');
    for (const address of target.suppressed ?? []) flag('--suppressed', address);
    if (target.webhook !== undefined) {
      const { host, port } = target.webhook.listen;
      flag('--webhook-listen', `${host.includes(':') ? `[${host}]` : host}:${port}`);
      flag('--webhook-public-url', target.webhook.publicUrl);
      args.push('--webhook-secret "$MAILTWIN_WEBHOOK_SECRET"');
      if (target.webhook.id !== undefined) flag('--webhook-id', target.webhook.id);
    }
    if (
      target.deliveryTimeoutMs !== undefined &&
      target.deliveryTimeoutMs !== DEFAULT_DELIVERY_TIMEOUT_MS
    )
      flag('--delivery-timeout', String(target.deliveryTimeoutMs));
    if (target.control !== undefined) {
      flag('--control-url', target.control.baseUrl);
      args.push('--control-token "$MAILTWIN_CONTROL_TOKEN"');
    }
  }
  const defaultRps = target.kind === 'live' ? LIVE_DEFAULT_MAX_RPS : null;
  if (run.maxRps !== defaultRps) flag('--max-rps', String(run.maxRps ?? 0));
  if (run.requestTimeoutMs !== DEFAULT_REQUEST_TIMEOUT_MS)
    flag('--request-timeout', String(run.requestTimeoutMs));
  if (run.profile !== 'full') flag('--profile', run.profile);
  flag('--seed', String(run.seed));
  if (run.numRuns !== PROFILES[run.profile].numRuns) flag('--num-runs', String(run.numRuns));
  if (run.filter !== undefined) flag('--filter', run.filter);
  if (run.strict && !PROFILES[run.profile].strict) flag('--strict');
  if (run.shard !== undefined) flag('--shard', run.shard);
  if (run.reports.length !== 1 || run.reports[0] !== 'console')
    flag('--report', run.reports.join(','));
  if (run.reportDir !== 'conformance-report') flag('--report-dir', run.reportDir);
  return args.join(' ');
}

/** A word a POSIX shell reads as itself: bare when safe, else in single quotes. */
function quote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
