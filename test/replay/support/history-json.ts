import { createRequire } from 'node:module';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

export type History = proto.temporal.api.history.v1.IHistory;

/**
 * History <-> the JSON format of `temporal workflow show --output json` and the Web UI download.
 *
 * Same conversion as `historyToJSON` / `historyFromJSON` of `@temporalio/common/lib/proto-utils`,
 * which cannot be used in this install: `@temporalio/common` and `@temporalio/proto` each get a
 * nested copy of protobufjs 8 (the top level holds protobufjs 7 for @grpc/proto-loader), and the
 * `instanceof Type` check across the two copies throws "type must be a Type". Here protojson is
 * loaded from the same protobufjs instance `@temporalio/proto` was built with, whatever the layout.
 */
const protojson = createRequire(require.resolve('@temporalio/proto'))('protobufjs/ext/protojson') as {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
};
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType('temporal.api.history.v1.History');

export function historyToJSON(history: History): string {
  return JSON.stringify(protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history)), null, 2) + '\n';
}

export function historyFromJSON(json: string): History {
  return protojson.fromJson(historyType, JSON.parse(json), { ignoreUnknownFields: true }) as History;
}
