/**
 * What an inference has found so far (infer.ts): a binding that starts as the default, the
 * source of each entry it set, and the entries it could not settle, with the walk of the
 * document it reads and the few questions every part asks of it.
 */
import { defaultBinding } from './binding.ts';
import type { OpenApiWalk, Located } from './openapi-walk.ts';

export interface Ambiguity {
  /** The binding entry, as a JSON pointer into the binding: `/list/array`. */
  entry: string;
  /** Each candidate, with where the document shows it. */
  candidates: string[];
}

/** The inference in progress, handed to each part of it (infer-*.ts). */
export class InferenceDraft {
  readonly binding = defaultBinding();
  readonly sources: Record<string, string> = {};
  readonly ambiguous: Ambiguity[] = [];

  constructor(readonly walk: OpenApiWalk) {}

  /** Sets one entry (`/list/array`) and where the document shows it. */
  set(entry: string, value: unknown, source: string): void {
    const [, section, key] = entry.split('/') as [string, string, string];
    (this.binding as unknown as Record<string, Record<string, unknown>>)[section]![key] = value;
    this.sources[entry] = source;
  }

  /** One name among `names` for `entry`: the default's name first, then the pattern's. */
  pick(
    entry: string,
    properties: Map<string, Located>,
    defaultName: string | undefined,
    pattern: RegExp,
    accept: (at: Located) => boolean = () => true,
  ): [string, Located] | undefined {
    if (defaultName !== undefined) {
      const exact = properties.get(defaultName);
      if (exact !== undefined && accept(exact)) return [defaultName, exact];
    }
    const found = [...properties].filter(([name, at]) => pattern.test(name) && accept(at));
    if (found.length === 1) return found[0];
    if (found.length > 1)
      this.ambiguous.push({
        entry,
        candidates: found.map(([name, at]) => `${name} (${at.pointer})`),
      });
    return undefined;
  }

  /** The operation at `method` and `path`, if the document has it. */
  operation(method: string, path: string): Located | undefined {
    return this.walk.operation(method, path);
  }

  /** The JSON schema of an operation's success answer. */
  successSchema(method: string, path: string): Located | undefined {
    const operation = this.operation(method, path);
    const success = operation && this.walk.success(operation);
    return success && this.walk.jsonSchema(success[1]);
  }

  /** The properties of an operation's JSON request body (none without one). */
  requestProperties(method: string, path: string): Map<string, Located> {
    const operation = this.operation(method, path);
    if (operation === undefined) return new Map();
    const schema = this.walk.jsonSchema(this.walk.child(operation, 'requestBody'));
    return schema === undefined ? new Map() : this.walk.properties(schema);
  }
}
