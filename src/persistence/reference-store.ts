import { Bank, Country, Currency, MomoNetwork } from './entities';
import type { Orm } from './orm';

export async function listMomoNetworks(orm: Orm) {
  const rows = await orm.em.fork().find(MomoNetwork, {}, { orderBy: { country: 'asc', code: 'asc' } });
  return rows.map((r) => ({ id: r.id, object: 'momo_network', code: r.code, name: r.name, country: r.country, currency: r.currency }));
}

export async function listBanks(orm: Orm) {
  const rows = await orm.em.fork().find(Bank, {}, { orderBy: { country: 'asc', code: 'asc' } });
  return rows.map((r) => ({ code: r.code, object: 'bank', name: r.name, country: r.country, currency: r.currency }));
}

export async function listCurrencies(orm: Orm) {
  const rows = await orm.em.fork().find(Currency, {}, { orderBy: { code: 'asc' } });
  return rows.map((r) => ({ code: r.code, object: 'currency', name: r.name, minor_units: r.minorUnits }));
}

export async function listCountries(orm: Orm) {
  const rows = await orm.em.fork().find(Country, {}, { orderBy: { code: 'asc' } });
  return rows.map((r) => ({ code: r.code, object: 'country', name: r.name, currency: r.currency }));
}

type Lookup<T> = Promise<Map<string, T>>;
const lookups = new WeakMap<Orm, { networks?: Lookup<{ name: string; country: string; currency: string }>; currencies?: Lookup<{ code: string }> }>();

/**
 * Reference lists change only through migrations, so each process loads them once (per ORM) and
 * validates requests from memory.
 */
function cached(orm: Orm) {
  let entry = lookups.get(orm);
  if (!entry) lookups.set(orm, (entry = {}));
  return entry;
}

export async function findMomoNetwork(orm: Orm, id: string) {
  const entry = cached(orm);
  entry.networks ??= listMomoNetworks(orm).then(
    (rows) => new Map(rows.map((r) => [r.id, r])),
    (error) => {
      entry.networks = undefined;
      throw error;
    },
  );
  return (await entry.networks).get(id.toLowerCase()) ?? null;
}

export async function findCurrency(orm: Orm, code: string) {
  const entry = cached(orm);
  entry.currencies ??= listCurrencies(orm).then(
    (rows) => new Map(rows.map((r) => [r.code, r])),
    (error) => {
      entry.currencies = undefined;
      throw error;
    },
  );
  return (await entry.currencies).get(code) ?? null;
}
