import type { Ref, SimRegistry } from './types';

/**
 * The objects a run created. A creating step registers its creation under the index the plan gave it
 * (`extra.ref_index`, the step's `params.ref_index`), so a reference names the same object whatever
 * the shrinker cut before it; without `ref_index` the creation takes the next index of its kind.
 * A reference to an index nothing registered (its step was cut or refused) resolves to null.
 */
export function createRegistry(): SimRegistry {
  const byKind = new Map<Ref['kind'], Map<number, { id: string; extra: Record<string, string> }>>();
  const of = (kind: Ref['kind']) => {
    let map = byKind.get(kind);
    if (!map) byKind.set(kind, (map = new Map()));
    return map;
  };
  return {
    merchants: [],
    requests: [],
    bursts: [],
    balanceRaces: [],
    operatorActed: [],
    add(kind, id, extra = {}) {
      const map = of(kind);
      const index = extra.ref_index === undefined ? (map.size === 0 ? 0 : Math.max(...map.keys()) + 1) : Number(extra.ref_index);
      if (map.has(index)) throw new Error(`the simulation registered a second ${kind} #${index} (${id}; first ${map.get(index)!.id})`);
      map.set(index, { id, extra });
    },
    resolve(ref) {
      return of(ref.kind).get(ref.index) ?? null;
    },
    count(kind) {
      return of(kind).size;
    },
  };
}
