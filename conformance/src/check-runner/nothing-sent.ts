/**
 * A check that sent nothing to the target checked nothing, however green it ends: a property
 * whose every generated case was empty, a body that returned early, a world that was never
 * built. `rule()` (check.ts) asks this of every check whose body passed and of every property
 * that passed, so such a run fails, naming the check, instead of counting as conformant.
 */
export class NothingSent extends Error {
  override name = 'NothingSent';
}

/** Throws {@link NothingSent} when `requests` is 0; `what` names the check or property. */
export function expectSentSomething(requests: number, what: string): void {
  if (requests > 0) return;
  throw new NothingSent(
    `${what} sent no request to the target, so it checked nothing: every check that runs must send at least one`,
  );
}
