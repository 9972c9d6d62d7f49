/**
 * `mailtwin binding --from <url or file>`: the binding a deployment's published OpenAPI
 * document implies (§1 "{origin}/openapi/openapi.json: OpenAPI 3.1 schema"), printed as YAML
 * with each entry's source (a JSON pointer into the document, or "default"); and the binding
 * `mailtwin serve --binding`/`--contract` speaks. Inference is the conformance suite's own
 * module (conformance/src/binding/infer.ts), so the emulator and the suite read a published
 * document the same way; it is loaded only when asked for.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../cli-options.ts';
import { HELP_FLAG, helpOptions, parseArgsOptions, type Flag } from '../../../shared/flag-table.ts';
import type { Binding } from '../binding/binding.ts';
import { yamlPackage } from '../spec.ts';
import { BindingError, bindingFrom, loadBindingFile } from '../binding/load.ts';
import {
  DocumentError,
  isUrl,
  readDocument,
  type ReadOptions,
} from '../binding/document-source.ts';

/**
 * Every flag of `mailtwin binding`, written once: the parser, `--help` and the table of
 * docs/serve.md are made from it (flag-table.ts).
 */
export const BINDING_FLAGS = [
  {
    name: 'from',
    type: 'string',
    value: '<url or file>',
    required: true,
    description:
      'The OpenAPI document: an http(s) URL such as https://mail.example.com/openapi/openapi.json (fetched, 10 s time-out) or a file, YAML or JSON',
  },
  HELP_FLAG,
] as const satisfies readonly Flag[];

export const BINDING_HELP = `Usage: mailtwin binding --from <url or file>

Infers a deployment's binding (how it names and answers what the service document leaves
"not shown") from the OpenAPI document it publishes, and prints it as YAML
(spec/binding.schema.json) with each entry's source: a JSON pointer into the document, or
"default" (spec/bindings/decisions.yaml). Save it and start the emulator in that dialect with
mailtwin serve --binding <file>, or infer at start-up with mailtwin serve --contract <url>.

${helpOptions(BINDING_FLAGS)}
Exit status: 0 when every entry was inferred or defaulted; 2 when an entry is ambiguous (each
is listed on stderr with its candidates, never guessed), or on a bad flag or unreadable document.
`;

export interface Inferred {
  binding: Binding;
  sources: Record<string, string>;
  ambiguous: { entry: string; candidates: string[] }[];
}

/** The suite's inference, loaded on demand. */
export async function inferFrom(location: string, options: ReadOptions = {}): Promise<Inferred> {
  const document = await readDocument(location, options);
  const { inferBinding } = await import('../../../conformance/src/binding/infer.ts');
  try {
    return inferBinding(document) as unknown as Inferred;
  } catch (error) {
    throw new DocumentError(`${location}: ${(error as Error).message}`);
  }
}

/** Each ambiguous entry and its candidates, one line each. */
export function describeAmbiguity(ambiguous: Inferred['ambiguous']): string {
  return ambiguous
    .map(({ entry, candidates }) => `  ${entry}: one of ${candidates.join(', ')}`)
    .join('\n');
}

/** What `mailtwin serve` speaks: a binding file, a binding inferred from a document, or none. */
export interface SpokenBinding {
  binding: Binding;
  /** For the banner: where it came from. */
  source: string;
}

export async function resolveServeBinding(
  options: { binding: string | null; contract: string | null },
  read: ReadOptions = {},
): Promise<SpokenBinding | null> {
  try {
    if (options.binding !== null)
      return { binding: loadBindingFile(options.binding), source: options.binding };
    if (options.contract === null) return null;
    const inferred = await inferFrom(options.contract, read);
    if (inferred.ambiguous.length > 0)
      throw new UsageError(
        `--contract ${options.contract}: the document leaves ${inferred.ambiguous.length} binding ${inferred.ambiguous.length === 1 ? 'entry' : 'entries'} ambiguous; write a binding file (mailtwin binding --from ${options.contract} > binding.yaml, then edit) and start with --binding:\n${describeAmbiguity(inferred.ambiguous)}`,
      );
    return {
      binding: bindingFrom(inferred.binding, `binding inferred from ${options.contract}`),
      source: `inferred from ${options.contract}`,
    };
  } catch (error) {
    if (error instanceof BindingError || error instanceof DocumentError)
      throw new UsageError(error.message);
    throw error;
  }
}

export function parseBindingOptions(
  argv: string[],
  cwd = process.cwd(),
): { from: string } | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: parseArgsOptions(BINDING_FLAGS),
    }));
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\s+/g, ' ').trim());
  }
  if (values.help) return 'help';
  if (values.from === undefined || values.from.trim() === '')
    throw new UsageError('--from <url or file> is required');
  return { from: isUrl(values.from) ? values.from : resolve(cwd, values.from) };
}

/**
 * The binding as YAML, each entry followed by its source as a comment; parsing it gives the
 * binding back.
 */
export function bindingYaml(inferred: Inferred, location: string): string {
  const { Document, isMap, isPair, isScalar, isSeq } = yamlPackage();
  const doc = new Document(inferred.binding);
  doc.commentBefore = ` Binding inferred from ${location} by mailtwin binding --from.\n Each entry's source: a JSON pointer into that document, or "default" (spec/bindings/decisions.yaml).`;
  const root = doc.contents;
  if (isMap(root)) {
    for (const section of root.items) {
      if (!isPair(section) || !isScalar(section.key)) continue;
      const name = String(section.key.value);
      if (!isMap(section.value)) continue;
      for (const entry of section.value.items) {
        if (!isPair(entry) || !isScalar(entry.key)) continue;
        const source = inferred.sources[`/${name}/${String(entry.key.value)}`];
        if (isMap(entry.value) || isSeq(entry.value)) entry.value.flow = true;
        if (source !== undefined && entry.value !== null && typeof entry.value === 'object')
          (entry.value as { comment?: string }).comment = ` ${source}`;
      }
    }
  }
  return doc.toString({ lineWidth: 0 });
}

/** Runs `mailtwin binding`; returns the exit status. */
export async function runBinding(
  argv: string[],
  out: (text: string) => void,
  err: (text: string) => void,
  read: ReadOptions = {},
): Promise<number> {
  try {
    const options = parseBindingOptions(argv);
    if (options === 'help') {
      out(BINDING_HELP);
      return 0;
    }
    const inferred = await inferFrom(options.from, read);
    out(bindingYaml(inferred, options.from));
    if (inferred.ambiguous.length > 0) {
      err(
        `mailtwin binding: ${inferred.ambiguous.length} ambiguous ${inferred.ambiguous.length === 1 ? 'entry' : 'entries'} (the YAML above keeps the default there):\n${describeAmbiguity(inferred.ambiguous)}\n`,
      );
      return 2;
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof DocumentError) {
      err(`mailtwin binding: ${error.message} (run with --help for usage)\n`);
      return 2;
    }
    throw error;
  }
}
