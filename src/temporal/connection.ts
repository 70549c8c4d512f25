import { Client, Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../domain/search-attributes';
import { temporal } from '@temporalio/proto';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
  namespace: string;
}

export async function connectTemporal(address: string, namespace: string): Promise<TemporalHandle> {
  const connection = await Connection.connect({ address });
  return { connection, client: new Client({ connection, namespace }), namespace };
}

/**
 * Registers the custom search attributes on a server started elsewhere (TEMPORAL_ADDRESS), so
 * operators can filter payments in the UI. Attributes that exist already are left alone.
 */
export async function registerSearchAttributes(handle: TemporalHandle): Promise<void> {
  const { IndexedValueType } = temporal.api.enums.v1;
  const existing = await handle.connection.operatorService.listSearchAttributes({ namespace: handle.namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTE_DEFINITIONS.filter((d) => !known.has(d.name));
  if (missing.length === 0) return;
  const searchAttributes: Record<string, number> = {};
  for (const d of missing) {
    searchAttributes[d.name] = d.type === 'Int' ? IndexedValueType.INDEXED_VALUE_TYPE_INT : IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  }
  await handle.connection.operatorService.addSearchAttributes({ namespace: handle.namespace, searchAttributes });
}
