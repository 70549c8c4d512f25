import { defineEntity, p } from '@mikro-orm/postgresql';

export const MomoNetwork = defineEntity({
  name: 'MomoNetwork',
  tableName: 'momo_networks',
  properties: {
    id: p.uuid().primary(),
    code: p.string(),
    name: p.string(),
    country: p.string(),
    currency: p.string(),
  },
});

export const Bank = defineEntity({
  name: 'Bank',
  tableName: 'banks',
  properties: {
    code: p.string().primary(),
    name: p.string(),
    country: p.string(),
    currency: p.string(),
  },
});

export const Currency = defineEntity({
  name: 'Currency',
  tableName: 'currencies',
  properties: {
    code: p.string().primary(),
    name: p.string(),
    minorUnits: p.integer(),
  },
});

export const Country = defineEntity({
  name: 'Country',
  tableName: 'countries',
  properties: {
    code: p.string().primary(),
    name: p.string(),
    currency: p.string(),
  },
});
