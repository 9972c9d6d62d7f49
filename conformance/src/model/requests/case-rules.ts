/**
 * The one rule each generated case checks: the rule that says it must be accepted or refused,
 * and the rule its error code and field are charged to.
 */
import type { RequestCase } from './request-types.ts';

/** What an operation's valid requests verify by being accepted. */
const ACCEPTANCE_RULES: Record<string, string> = {
  sendEmail: '4.3-R1',
  replyToEmail: '4.7-R2',
  forwardEmail: '4.8-R1',
  updateEmail: '4.5-R1',
  listEmails: '4.2-R1',
  uploadAttachment: '4.9-R1',
};

/** Required fields the document itself marks required (§4.2, §4.3, §4.8). */
const DOCUMENTED_REQUIRED: Record<string, Record<string, string>> = {
  sendEmail: { from: '4.3-R6', to: '4.3-R7', subject: '4.3-R9' },
  forwardEmail: { to: '4.8-R1' },
  listEmails: { mailbox: '4.2-R1' },
};

/**
 * The rule a case's marker names: the parenthesis that ends its `why` (`(D-11)`, `(§4.3 rule
 * 2)`, `(§8)`), never a word of the generated data before it.
 */
const MARKERS: [RegExp, string][] = [
  [/\(§4\.3 rule 1\)$/, '4.3-R1'],
  [/\(§4\.3 rule 2\)$/, '4.3-R2'],
  [/\(§4\.3 rule 3\)$/, '4.3-R3'],
  [/\(§4\.9, §8\)$/, '8-R8'],
  [/\(§4\.9\)$/, '8-R8'],
  [/attachments \(§8\)$/, '8-R4'],
  [/never supplied: variables do not apply to HTML \(§2\.6\)$/, '2.6-R3'],
  [/supplied \(§2\.6\)$/, '2.6-R2'],
  [/\(D-44[^()]*\)$/, '4.9-R1'],
  // A decision named in the closing parenthesis: `(D-11)`, `(maxLength, D-9)`.
  [/\([^()]*\b(D-\d+)\b[^()]*\)$/, '$1'],
];

/** Error codes whose condition the document names (§4.3, §8), or one decision fixes. */
const CODE_RULES: Record<string, string> = {
  unknown_field: 'D-31',
  invalid_folder: 'D-5',
  limit_too_large: 'D-15',
  invalid_cursor: 'D-16',
  attachment_not_found: 'D-32',
  mailbox_not_found: 'D-26',
  unsupported_media_type: 'D-28',
  reserved_variable: 'D-24',
  invalid_variable: 'D-24',
  missing_variable: '4.3-R3',
  body_required: '4.3-R1',
  body_conflict: '4.3-R1',
  too_many_recipients: '4.3-R2',
  too_many_attachments: '8-R4',
  file_empty: '8-R8',
  too_many_files: '8-R8',
  file_missing: '4.9-R1',
  invalid_multipart: '4.9-R1',
};

/**
 * The one rule a generated case verifies: for an invalid one, the rule that says it must be
 * refused (a documented rule where the document says so: a missing required field, §4.3's
 * rules, §8's limits; else the decision that refuses it, D-12 by default); for a valid one, the
 * rule that says it must be accepted. Its error code and field are decided (D-12) unless the
 * refusal itself is: see {@link codeRule}.
 */
export function caseRule(operationId: string, c: RequestCase): string {
  if (c.expectedCodes.length === 0) {
    for (const [marker, rule] of MARKERS) {
      const found = marker.exec(c.why);
      if (found !== null) return rule.replace('$1', found[1] ?? '');
    }
    return ACCEPTANCE_RULES[operationId] ?? '4.3-R1';
  }
  if (c.why.startsWith('wrong type'))
    return c.expectedCodes.includes('invalid_variable') ? 'D-24' : 'D-12';
  if (operationId === 'updateEmail' && c.expectedCodes.includes('missing_field')) return 'D-20';
  if (c.expectedCodes.includes('missing_field') && c.expectedField !== undefined)
    return DOCUMENTED_REQUIRED[operationId]?.[c.expectedField] ?? 'D-12';
  if (operationId === 'sendEmail' && c.expectedCodes.includes('subject_too_long')) return '4.3-R9';
  for (const [marker, rule] of MARKERS) {
    const found = marker.exec(c.why);
    if (found !== null) return rule.replace('$1', found[1] ?? '');
  }
  for (const code of c.expectedCodes) if (CODE_RULES[code] !== undefined) return CODE_RULES[code];
  return 'D-12';
}

/** The rule a refused case's code and field are charged to: its own if decided, else D-12. */
export function codeRule(operationId: string, c: RequestCase): string {
  const rule = caseRule(operationId, c);
  return rule.startsWith('D-') ? rule : 'D-12';
}
