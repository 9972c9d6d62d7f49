/** One HTTP request and its answer, kept so that a failure can show and replay it. */
export interface Exchange {
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    /** The body as text, or a note for binary bodies. */
    body?: string;
  };
  response?: {
    status: number;
    headers: Record<string, string>;
    bodyText: string;
  };
  /** How the response breaks spec/openapi.yaml; empty when it conforms. */
  violations: string[];
}

/**
 * The exchange's request as a `curl` command a vendor can paste into a shell. The base URL and
 * the key are shell variables (`$MAILTWIN_BASE_URL`, `$MAILTWIN_API_KEY`, as the emulator's
 * banner prints them), so a replay never carries a secret and works against any target. A
 * call to the control plane (`controlUrl`) uses `$MAILTWIN_CONTROL_URL` and
 * `$MAILTWIN_CONTROL_TOKEN` instead.
 */
export function toCurl(exchange: Exchange, baseUrl: string, controlUrl?: string): string {
  const { method, url, headers, body } = exchange.request;
  const control = controlUrl !== undefined && url.startsWith(controlUrl);
  const [prefix, variable] = control
    ? [controlUrl, '$MAILTWIN_CONTROL_URL']
    : [baseUrl, '$MAILTWIN_BASE_URL'];
  const relative = url.startsWith(prefix) ? url.slice(prefix.length) : undefined;
  const parts = ['curl', '-i', '-X', method];
  parts.push(relative === undefined ? shellQuote(url) : `"${variable}"${shellQuote(relative)}`);
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization' && /^Bearer\s+\S+$/i.test(value)) {
      parts.push(
        '-H',
        control
          ? '"Authorization: Bearer $MAILTWIN_CONTROL_TOKEN"'
          : '"Authorization: Bearer $MAILTWIN_API_KEY"',
      );
    } else {
      parts.push('-H', shellQuote(`${name}: ${value}`));
    }
  }
  if (body !== undefined) parts.push('--data-binary', shellQuote(body));
  return parts.join(' ');
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A short, readable account of the exchange for failure messages. */
export function describeExchange(
  exchange: Exchange,
  baseUrl: string,
  maxBody = 800,
  controlUrl?: string,
): string {
  const lines = [`  replay: ${toCurl(exchange, baseUrl, controlUrl)}`];
  if (exchange.response === undefined) {
    lines.push('  response: none (the request failed before an answer arrived)');
  } else {
    const { status, headers, bodyText } = exchange.response;
    const type = headers['content-type'] ?? 'no content-type';
    const body =
      bodyText.length > maxBody
        ? `${bodyText.slice(0, maxBody)}… (${bodyText.length} chars)`
        : bodyText;
    lines.push(`  response: ${status} (${type}) ${body}`);
  }
  for (const violation of exchange.violations) lines.push(`  spec violation: ${violation}`);
  return lines.join('\n');
}
