/**
 * §8's limits on what one message carries, and the refusals that name them (D-41, D-42, D-65,
 * D-67): each says which field to change.
 */
import { ApiError } from '../errors.ts';
import type { RenderTimeout } from '../mime/render-pool.ts';
import type { Draft } from './send-draft.ts';

/** §8 limits on what one message carries. */
export const MAX_ATTACHMENTS = 20;
export const MAX_ATTACHMENT_BYTES = 3 * 1024 * 1024;
export const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;

export function subjectTooLong(): ApiError {
  return new ApiError(
    'subject_too_long',
    'subject is longer than 998 characters once variables are filled in.',
    'subject',
  );
}

/** D-67: a body whose rendering ran past the render thread's budget. */
export function bodyTooComplex(draft: Draft, timeout: RenderTimeout): ApiError {
  return new ApiError(
    'body_too_complex',
    `The body took longer than ${timeout.budgetMs / 1000} s to render; nothing was sent. Send a simpler or shorter body.`,
    draft.body.kind === 'original' ? undefined : draft.body.kind,
  );
}

/**
 * D-42: names what to change. The files (`attachmentIds`) when the body alone would fit, else
 * the body's field (`markdown`, `html`, `text`), or no field for a forwarded original's body.
 */
export function messageTooLarge(
  draft: Draft,
  result: { bytes: number; atLeast: boolean; bodyAlone: boolean; preheaderAlone?: true },
): ApiError {
  const size = `${result.atLeast ? 'at least ' : ''}${result.bytes} bytes`;
  const limit = `the platform accepts at most ${MAX_MESSAGE_BYTES} (5 MiB)`;
  if (result.preheaderAlone === true) {
    return new ApiError(
      'message_too_large',
      `The preheader, with its variables filled in, is ${size}; ${limit} for the whole message. Shorten the preheader.`,
      'preheader',
    );
  }
  if (draft.attachments.length > 0 && !result.bodyAlone) {
    return new ApiError(
      'message_too_large',
      `The encoded message is ${size}; ${limit}. Put large files' url in the body instead.`,
      'attachmentIds',
    );
  }
  const field = draft.body.kind === 'original' ? undefined : draft.body.kind;
  return new ApiError(
    'message_too_large',
    `The encoded message is ${size}; ${limit}. Shorten the body.`,
    field,
  );
}
