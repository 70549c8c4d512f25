import { unsafeUniformIntDistribution, xoroshiro128plus, type RandomGenerator } from 'pure-rand';

/**
 * The chaos run's seeded randomness (pure-rand's xoroshiro128+). Each part of a run (the fault
 * schedule, the load) draws from its own stream, forked by name from the run's seed, so that adding
 * a request to the load does not move the faults: one seed gives the same schedule of faults and
 * the same sequence of requests.
 */
export class Rng {
  private readonly gen: RandomGenerator;

  constructor(readonly seed: number) {
    this.gen = xoroshiro128plus(seed | 0);
  }

  /** A separate stream for one part of the run, named so that it does not depend on draw order. */
  fork(name: string): Rng {
    let h = this.seed | 0;
    for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 0x9e3779b1) | 0;
    return new Rng(h);
  }

  /** A whole number in [min, max], both included. */
  int(min: number, max: number): number {
    return unsafeUniformIntDistribution(min, max, this.gen);
  }

  /** A number in [0, 1). */
  float(): number {
    return this.int(0, 0x7fffffff) / 0x80000000;
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** One of `weights`' keys, each as likely as its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let x = this.float() * total;
    for (const [key, w] of entries) {
      if (x < w) return key;
      x -= w;
    }
    return entries[entries.length - 1]![0];
  }

  /** The items in a seeded order. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** A UUID-shaped key made of the stream (an Idempotency-Key that a seed reproduces). */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(0, 15).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[this.int(0, 3)]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}
