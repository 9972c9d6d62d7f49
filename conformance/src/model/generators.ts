import fc from 'fast-check';
import type { ModelAddress, ModelQuery } from './mail-model.ts';

/** Words with case, accents and digits, so search semantics (D-13) are exercised. */
export const VOCABULARY = [
  'invoice',
  'Invoice',
  'INVOICE',
  'meeting',
  'réunion',
  'Réunion',
  'café',
  'cafe',
  'shipping',
  'order',
  'über',
  'naïve',
  'report',
  'q3',
  '2026',
  'alpha',
  'alphabet',
  'beta',
  'señor',
  'Ünïcode',
];

export const SENDERS: ModelAddress[] = [
  { address: 'bob@partner.test', name: 'Bob Stone' },
  { address: 'alice.w@vendor.test', name: 'Alice Wang' },
  { address: 'noreply@shop.test', name: null },
  { address: 'zoe@muller.test', name: 'Zoë Müller' },
];

/** The folders §3.1 names: every deployment has them. */
export const DOCUMENTED_FOLDERS = ['inbox', 'trash'];
/** Our other folders (D-5): used only where a check charges what they do to D-5. */
export const DECIDED_FOLDERS = ['sent', 'archive', 'spam'];

/** A few instants a minute apart, so equal timestamps (ties, D-17) are common. */
export const INSTANTS = Array.from({ length: 8 }, (_, i) =>
  new Date(Date.UTC(2026, 9, 1, 9, i)).toISOString(),
);

const words = (max: number) =>
  fc
    .array(fc.constantFrom(...VOCABULARY), { minLength: 0, maxLength: max })
    .map((w) => w.join(' '));

export interface GeneratedEmail {
  folder: string;
  read: boolean;
  starred: boolean;
  from: ModelAddress;
  subject: string;
  text: string;
  receivedAt: string;
}

/** An email in a folder every deployment has (§3.1). */
export const generatedEmail: fc.Arbitrary<GeneratedEmail> = fc.record({
  folder: fc.constantFrom(...DOCUMENTED_FOLDERS),
  read: fc.boolean(),
  starred: fc.boolean(),
  from: fc.constantFrom(...SENDERS),
  subject: words(4),
  text: words(8),
  receivedAt: fc.constantFrom(...INSTANTS),
});

const substringOf = (values: string[]) =>
  fc
    .tuple(fc.constantFrom(...values), fc.nat(), fc.nat(), fc.boolean())
    .map(([value, a, b, upper]) => {
      const start = a % value.length;
      const end = start + 1 + (b % (value.length - start));
      const piece = value.slice(start, end);
      return upper ? piece.toUpperCase() : piece;
    })
    .filter((s) => s.trim() !== '' && !s.includes('\u0000'));

const bound = fc.oneof(
  fc.constantFrom(...INSTANTS),
  fc.constant('2026-10-01'),
  fc.constant('2026-10-02'),
);

const instantOf = (bound: string) =>
  Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(bound) ? `${bound}T00:00:00Z` : bound);

const filters = {
  folder: fc.constantFrom(...DOCUMENTED_FOLDERS),
  q: fc
    .array(fc.tuple(fc.constantFrom(...VOCABULARY), fc.boolean()), { minLength: 1, maxLength: 2 })
    .map((terms) =>
      terms
        .map(([w, prefix]) => (prefix ? `${w.slice(0, Math.max(1, w.length - 2))}*` : w))
        .join(' '),
    ),
  from: substringOf(SENDERS.flatMap((s) => [s.address, ...(s.name ? [s.name] : [])])),
  subject: substringOf(VOCABULARY),
  read: fc.boolean(),
  starred: fc.boolean(),
  dateFrom: bound,
  dateTo: bound,
};
type FilterName = keyof typeof filters;
const FILTER_NAMES = Object.keys(filters) as FilterName[];

/**
 * A query of §4.2: usually none, one or two filters (so results are rarely empty), sometimes
 * any combination; a date range is never inverted (that is a 400, checked apart).
 */
export const generatedQuery: fc.Arbitrary<ModelQuery> = fc
  .oneof(
    { weight: 1, arbitrary: fc.constant<FilterName[]>([]) },
    { weight: 4, arbitrary: fc.subarray(FILTER_NAMES, { minLength: 1, maxLength: 1 }) },
    { weight: 3, arbitrary: fc.subarray(FILTER_NAMES, { minLength: 2, maxLength: 2 }) },
    { weight: 1, arbitrary: fc.subarray(FILTER_NAMES) },
  )
  .chain((names) =>
    fc.record(
      Object.fromEntries(names.map((name) => [name, filters[name]])) as {
        [K in FilterName]: fc.Arbitrary<unknown>;
      },
    ),
  )
  .map((query) => query as ModelQuery)
  .map((query) =>
    query.dateFrom !== undefined &&
    query.dateTo !== undefined &&
    instantOf(query.dateTo) < instantOf(query.dateFrom)
      ? { ...query, dateFrom: query.dateTo, dateTo: query.dateFrom }
      : query,
  );
