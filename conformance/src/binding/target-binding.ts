/**
 * Which binding a run checks a target through (issue 26): `--binding <file>`, else the one
 * inferred from the OpenAPI document the target serves at `{origin}/openapi/openapi.json`
 * (§1), else the default (spec/DECISIONS.md). The target's own document is then the decided
 * layer its answers are judged by, wherever its binding departs from the default.
 */
import { defaultDialect } from './dialect.ts';
import {
  defaultBinding,
  loadBindingFile,
  resolveBinding,
  sameEntries,
  type ResolvedBinding,
} from './binding.ts';
import { inferBinding } from './infer.ts';
import type { Ambiguity } from './inference-draft.ts';

/** What the run uses, and what it says about where it came from. */
export interface TargetBinding {
  resolved: ResolvedBinding;
  /** Where the target's document was read, when one was: the run's decided layer. */
  publishedUrl?: string;
  /** One sentence for the run's output: which binding, from where. */
  note: string;
}

/** The document names entries it cannot tell apart: the run stops, nothing is guessed. */
export class AmbiguousBinding extends Error {
  override name = 'AmbiguousBinding';
  constructor(
    readonly url: string,
    readonly ambiguous: Ambiguity[],
  ) {
    super(
      `the OpenAPI document at ${url} leaves ${ambiguous.length} binding entr${ambiguous.length === 1 ? 'y' : 'ies'} ambiguous:\n` +
        ambiguous.map((a) => `  ${a.entry}: ${a.candidates.join('; ')}`).join('\n') +
        `\n  write the binding out (mailtwin binding --from ${url} > binding.yaml), settle these entries, and give --binding binding.yaml`,
    );
  }
}

export interface BindingSource {
  /** `--binding`, when given. */
  file?: string;
  /** `{origin}` (§1) of the target. */
  origin: string;
  fetch(request: Request): Promise<Response>;
  timeoutMs: number;
}

export const PUBLISHED_PATH = '/openapi/openapi.json';

export async function targetBinding(source: BindingSource): Promise<TargetBinding> {
  const url = `${source.origin}${PUBLISHED_PATH}`;
  const document = await publishedDocument(source, url);
  if (source.file !== undefined) {
    const resolved = loadBindingFile(source.file);
    return {
      resolved,
      ...(document !== undefined && !isDefault(resolved) ? { publishedUrl: url } : {}),
      note: `the binding ${source.file} (${resolved.binding.name})`,
    };
  }
  if (document === undefined) {
    return {
      resolved: defaultDialect().resolved,
      note: `the default binding (spec/DECISIONS.md): the target publishes no OpenAPI document at ${url}`,
    };
  }
  const inferred = inferBinding(document);
  if (inferred.ambiguous.length > 0) throw new AmbiguousBinding(url, inferred.ambiguous);
  const sources = Object.fromEntries(
    Object.entries(inferred.sources).map(([entry, from]) => [
      entry,
      from.startsWith('#') ? `${url}${from}` : from,
    ]),
  );
  const resolved = resolveBinding(inferred.binding, url, sources);
  const departs = !isDefault(resolved);
  return {
    resolved,
    ...(departs ? { publishedUrl: url } : {}),
    note: departs
      ? `the binding inferred from ${url} (${countDepartures(resolved)} entries differ from spec/DECISIONS.md)`
      : `the binding inferred from ${url}: spec/DECISIONS.md's own names`,
  };
}

function isDefault(resolved: ResolvedBinding): boolean {
  return sameEntries(resolved.binding, defaultBinding());
}

function countDepartures(resolved: ResolvedBinding): number {
  const ours = defaultDialect().binding as unknown as Record<string, Record<string, unknown>>;
  const theirs = resolved.binding as unknown as Record<string, Record<string, unknown>>;
  let count = 0;
  for (const [section, entries] of Object.entries(theirs))
    if (typeof entries === 'object' && entries !== null)
      for (const [key, value] of Object.entries(entries))
        if (JSON.stringify(value) !== JSON.stringify(ours[section]?.[key])) count += 1;
  return count;
}

/** The target's published document, or undefined when it serves none (any failure). */
async function publishedDocument(source: BindingSource, url: string): Promise<object | undefined> {
  try {
    const response = await source.fetch(
      new Request(url, { signal: AbortSignal.timeout(source.timeoutMs) }),
    );
    if (response.status !== 200) return undefined;
    const document = (await response.json()) as unknown;
    return typeof document === 'object' && document !== null && 'paths' in document
      ? document
      : undefined;
  } catch {
    return undefined;
  }
}
