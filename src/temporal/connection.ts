import { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { codecDataConverter } from './payload-codec';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../domain/search-attributes';
import { temporal } from '@temporalio/proto';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
  namespace: string;
}

/** A client whose payloads go through `codec` (temporal/payload-codec.ts), as the workers' do. */
export async function connectTemporal(address: string, namespace: string, codec: PayloadCodec): Promise<TemporalHandle> {
  const connection = await Connection.connect({ address });
  return { connection, client: new Client({ connection, namespace, dataConverter: codecDataConverter(codec) }), namespace };
}

/** The server's indexed value type of one of our search attribute definitions. */
export function indexedValueType(type: (typeof SEARCH_ATTRIBUTE_DEFINITIONS)[number]['type']): number {
  const { IndexedValueType } = temporal.api.enums.v1;
  if (type === 'Int') return IndexedValueType.INDEXED_VALUE_TYPE_INT;
  if (type === 'Bool') return IndexedValueType.INDEXED_VALUE_TYPE_BOOL;
  return IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
}

/**
 * Registers the custom search attributes on a server started elsewhere (TEMPORAL_ADDRESS), so
 * operators can filter payments in the UI. Attributes that exist already are left alone.
 */
export async function registerSearchAttributes(handle: TemporalHandle): Promise<void> {
  const existing = await handle.connection.operatorService.listSearchAttributes({ namespace: handle.namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTE_DEFINITIONS.filter((d) => !known.has(d.name));
  if (missing.length === 0) return;
  const searchAttributes: Record<string, number> = {};
  for (const d of missing) {
    searchAttributes[d.name] = indexedValueType(d.type);
  }
  await handle.connection.operatorService.addSearchAttributes({ namespace: handle.namespace, searchAttributes });
}
