/**
 * For unit tests of code that refuses input with an ApiError: what it refused with, as a
 * client would see it. Not part of the emulator; only tests import it.
 */
import { expect } from 'vitest';
import { ApiError } from '../errors.ts';

function thrownApiError(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** The refusal's code and field; every refusal must also carry a message (the Error schema). */
export function refusal(run: () => unknown): { code: string; field?: string } {
  const error = thrownApiError(run);
  expect(error.message.trim(), `message of ${error.code}`).not.toBe('');
  return { code: error.code, ...(error.field ? { field: error.field } : {}) };
}

/** The refusal's message. */
export function refusalMessage(run: () => unknown): string {
  return thrownApiError(run).message;
}
