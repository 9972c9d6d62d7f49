/**
 * A small seeded generator for chaos rules: the same seed gives the same numbers on every
 * machine and Node version, so a failing test replays (mulberry32, 32-bit state).
 */
export type Random = () => number;

/** Numbers in [0, 1) from a 32-bit seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The seed of rule `index` of a set seeded with `seed`: each rule draws from its own stream, so
 * what one surface does (a webhook retry due on another timer) never shifts another's outcomes.
 */
export function ruleSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
