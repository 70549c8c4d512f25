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

export async function findMomoNetwork(orm: Orm, id: string) {
  return orm.em.fork().findOne(MomoNetwork, { id });
}

export async function findCurrency(orm: Orm, code: string) {
  return orm.em.fork().findOne(Currency, { code });
}
