/**
 * JSON with object keys sorted and no whitespace: RFC 8785 for the values a certificate holds
 * (strings, booleans, null, integers), so `jq -jcS` gives the same bytes. Hashed by a
 * certificate (report/certificate.ts) and by a binding (binding/binding.ts).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
