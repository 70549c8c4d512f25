/**
 * The rail that moves live money. None exists yet: the live listener refuses money movement with
 * 503 `live_unavailable` (src/http/middleware/live-rail.ts) and a live charge workflow never
 * simulates a success (workflows/charge-rail.ts). Connecting a real rail is the one change that
 * switches both on: set this to its name and give the workflow its rail step.
 */
export type LiveRail = 'none';

export const LIVE_RAIL: LiveRail = 'none';

export const LIVE_UNAVAILABLE_MESSAGE =
  'Live payments are not available yet: no live payment rail is connected, so no money can move. Nothing was created. ' +
  'Use the sandbox (svc_test_ keys) meanwhile; reads, events, balances and webhook endpoints work on live.';
