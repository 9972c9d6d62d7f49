import type { Env, MiddlewareHandler } from 'hono';
import { isPassingOn, passesOn } from './one-handler.ts';

/**
 * Middleware run in the order given as one: each is called with a `next` that calls the one
 * after it, and the last with the app's own `next`. Hono runs every registered middleware as a
 * layer of its own (an async dispatch, a closure and a promise a layer: the API's seven cost
 * every request ~5 KB of allocations and several microseconds, issue 31 item 1); here a member
 * that only checks and passes on (returning `next()`) costs a call, and a member's own answer
 * becomes the context's response as Hono's layer would make it. One difference: an error thrown
 * by a member is not rendered at its own layer but passes through the members before it to the
 * layer of the whole, where Hono renders it with the same `onError`, as the same answer. When
 * every member passes on (one-handler.ts), so does the sequence.
 */
export function inSequence<E extends Env>(
  ...members: MiddlewareHandler<E>[]
): MiddlewareHandler<E> {
  if (members.every(isPassingOn)) return passesOn(passingOn(members));
  const sequence: MiddlewareHandler<E> = (c, next) => {
    const run = (i: number): Promise<void> => {
      const member = members[i];
      if (member === undefined) return next();
      let passedOn: Promise<void> | undefined;
      const result = member(c, () => (passedOn = run(i + 1)));
      // Passed on: the rest's promise, nothing of its own to keep.
      if (result === passedOn) return passedOn;
      return Promise.resolve(result).then((answer) => {
        if (answer instanceof Response && !c.finalized) c.res = answer;
      });
    };
    return run(0);
  };
  return sequence;
}

/**
 * Members that all pass on (one-handler.ts), run with one `next` between them, which calls
 * the member after the one that called it, and the app's own `next` after the last: a member
 * answers or throws without calling it, or returns what it returned, so the sequence returns
 * what its members do and needs nothing of its own for each (issue 31 item 1: a closure a
 * member and a request, seven on the API's edge, and a call and a check each).
 */
function passingOn<E extends Env>(members: MiddlewareHandler<E>[]): MiddlewareHandler<E> {
  return (c, next) => {
    let i = 0;
    const step = (): Promise<void> => {
      const member = members[i];
      i += 1;
      return member === undefined ? next() : (member(c, step) as Promise<void>);
    };
    return step();
  };
}
