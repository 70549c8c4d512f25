import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../domain/search-attributes';
import { indexedValueType } from './connection';

/**
 * Declares our custom search attributes on a time-skipping test server (the workflow tests and the
 * deterministic simulation). The test server refuses undeclared custom search attributes ("search
 * attribute MerchantId is not defined") and does not implement ListSearchAttributes (so
 * connection.ts' registerSearchAttributes cannot be used), but it does implement
 * OperatorService.AddSearchAttributes.
 */
export async function declareSearchAttributes(env: TestWorkflowEnvironment): Promise<void> {
  const searchAttributes = Object.fromEntries(SEARCH_ATTRIBUTE_DEFINITIONS.map((d) => [d.name, indexedValueType(d.type)]));
  await env.connection.operatorService.addSearchAttributes({ namespace: env.namespace ?? 'default', searchAttributes });
}
