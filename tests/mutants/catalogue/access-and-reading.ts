/**
 * Named mutants caught by attachments, authorization, bad-input, email-state, listing and
 * shapes checks.
 */
import type { NamedMutant } from '../named-mutant.ts';

export const ACCESS_AND_READING: readonly NamedMutant[] = [
  {
    id: 'M-1',
    rule: '8-R5',
    bug: 'raw attachment bytes are compared with >= instead of >: exactly 3 MiB is refused',
    file: 'emulator/src/services/send-service.ts',
    find: 'if (bytes > MAX_ATTACHMENT_BYTES) {',
    replace: 'if (bytes >= MAX_ATTACHMENT_BYTES) {',
    caughtBy: 'accepts exactly 3 MiB of raw attachment data and refuses one byte more, pointing to the url',
  },
];
