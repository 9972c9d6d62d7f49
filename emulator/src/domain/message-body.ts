import { ApiError } from '../errors.ts';

/** The three body fields of §4.3; exactly one is given (rule 1). */
export const BODY_FIELDS = ['markdown', 'html', 'text'] as const;
export type BodyKind = (typeof BODY_FIELDS)[number];

export interface GivenBody {
  kind: BodyKind;
  source: string;
}

/**
 * §4.3 rule 1: exactly one of markdown, html and text. None: 400 body_required; more than
 * one: 400 body_conflict naming the second. With `optional` (forward, D-23) none is allowed.
 */
export function pickBody(
  request: Partial<Record<BodyKind, string>>,
  options: { optional?: boolean } = {},
): GivenBody | undefined {
  const given = BODY_FIELDS.filter((field) => request[field] !== undefined);
  if (given.length > 1) {
    throw new ApiError(
      'body_conflict',
      `Give exactly one of markdown, html or text; got ${given.join(' and ')}.`,
      given[1],
    );
  }
  const kind = given[0];
  if (kind === undefined) {
    if (options.optional) return undefined;
    throw new ApiError('body_required', 'Give exactly one of markdown, html or text.', 'text');
  }
  return { kind, source: request[kind] as string };
}
