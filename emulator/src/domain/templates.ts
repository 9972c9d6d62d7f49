import { ApiError } from '../errors.ts';

/**
 * §2.6 and D-24: `{{name}}` (spaces allowed inside the braces) in the subject, preheader, text
 * and Markdown bodies; never in raw HTML. `email` and `unsubscribe_url` are reserved: the
 * service supplies them per recipient and a caller may not.
 */
export type VariableValue = string | number | boolean;
export type Variables = Record<string, VariableValue>;

export const RESERVED_VARIABLES = ['email', 'unsubscribe_url'] as const;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;

/**
 * The variable names a template uses, in order of first use. One match at a time: a body of
 * millions of placeholders must not become millions of match arrays at once (that took 22 s).
 */
export function variablesUsed(template: string): string[] {
  const names = new Set<string>();
  if (!template.includes('{{')) return [];
  const placeholder = new RegExp(PLACEHOLDER.source, 'g');
  for (let m = placeholder.exec(template); m !== null; m = placeholder.exec(template))
    names.add(m[1] as string);
  return [...names];
}

/** The length (UTF-16 code units) `renderTemplate` gives, found without making the string. */
export function renderedLength(template: string, values: Variables): number {
  let length = template.length;
  if (!template.includes('{{')) return length;
  const placeholder = new RegExp(PLACEHOLDER.source, 'g');
  for (let m = placeholder.exec(template); m !== null; m = placeholder.exec(template)) {
    const name = m[1] as string;
    if (Object.hasOwn(values, name)) length += String(values[name]).length - m[0].length;
  }
  return length;
}

/** Refuses reserved names supplied by the caller (400 reserved_variable). */
export function checkCallerVariables(variables: Variables): void {
  for (const name of RESERVED_VARIABLES) {
    if (Object.hasOwn(variables, name)) {
      throw new ApiError(
        'reserved_variable',
        `"${name}" is reserved: the service supplies it per recipient.`,
        `variables.${name}`,
      );
    }
  }
}

/**
 * §4.3 rule 3: every variable the templates use must be supplied (or reserved), checked
 * before anything is stored or sent; the first missing one is named in `field`.
 */
export function checkVariablesSupplied(
  templates: (string | undefined)[],
  variables: Variables,
): void {
  checkNamesSupplied(
    templates.map((t) => (t === undefined ? [] : variablesUsed(t))),
    variables,
  );
}

/** As checkVariablesSupplied, given the names each template uses (variablesUsed). */
export function checkNamesSupplied(used: string[][], variables: Variables): void {
  for (const names of used) {
    for (const name of names) {
      if (
        !Object.hasOwn(variables, name) &&
        !(RESERVED_VARIABLES as readonly string[]).includes(name)
      ) {
        throw new ApiError(
          'missing_variable',
          `Variable "${name}" is used but not supplied.`,
          `variables.${name}`,
        );
      }
    }
  }
}

/** Replaces every placeholder; numbers and booleans as JavaScript writes them. */
export function renderTemplate(template: string, values: Variables): string {
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}
