export { Merchant } from './merchant';
export { ApiKey } from './api-key';
export { Charge } from './charge';
export { Event } from './event';
export { LedgerEntry } from './ledger-entry';
export { IdempotencyRecord } from './idempotency-record';
export { MomoNetwork, Bank, Currency, Country } from './reference';

import { Merchant } from './merchant';
import { ApiKey } from './api-key';
import { Charge } from './charge';
import { Event } from './event';
import { LedgerEntry } from './ledger-entry';
import { IdempotencyRecord } from './idempotency-record';
import { MomoNetwork, Bank, Currency, Country } from './reference';

export const ALL_ENTITIES = [Merchant, ApiKey, Charge, Event, LedgerEntry, IdempotencyRecord, MomoNetwork, Bank, Currency, Country];
