import type fc from 'fast-check';
import type { ApiClient } from '../client/client.ts';
import type { Target } from '../client/target.ts';
import type { SpecValidator } from '../contract/spec-validator.ts';
import type { Need, RunConfig } from '../run/config.ts';

/** What every check body receives. */
export interface CheckContext {
  /** A client for this target, validating every API response against the contract. */
  api: ApiClient;
  target: Target;
  validator: SpecValidator;
  run: RunConfig;
  /**
   * Runs a fast-check property with the run's seed. On failure the shrunk case is run once
   * more, so the report shows its own HTTP exchanges and says whether it still fails.
   * `concurrency` runs that many cases at once, for cases that cannot see each other
   * (check-runner/property.ts); the verdict and the report of a failure are as one at a time.
   */
  property<T>(
    arbitrary: fc.Arbitrary<T>,
    predicate: (value: T) => Promise<void>,
    options?: { concurrency?: number },
  ): Promise<void>;
  /**
   * Runs `undo` when the check ends, passed or failed, latest first: how an API world deletes
   * the mail a check made, so the target's mailboxes are left as they were found.
   */
  cleanup(undo: () => Promise<void>): void;
  /**
   * Says that, on this target, the check does not reach `rules`, which need `needs` the target
   * lacks: if it passes, they are reported skipped with that reason, not passed.
   */
  unchecked(rules: string[], needs: Need[]): void;
  /**
   * Set when the check runs side by side with others in an API world (check-runner/check.ts,
   * `concurrent`): the tag every email it sends carries in its subject (worlds/claims.ts), by
   * which its mail watch tells its mail from theirs.
   */
  tag?: string;
}

/**
 * Thrown when the target cannot give what a check needs beyond its declared needs (an API
 * world given one --mailbox where the check sends between two): the check is skipped with
 * the message, never passed.
 */
export class MissingCapability extends Error {
  override name = 'MissingCapability';
}
