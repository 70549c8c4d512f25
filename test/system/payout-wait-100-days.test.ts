import { describeLongPayoutWait } from '../workflows/support/payout-long-wait';

// Issue 43 (Medium: no continue-as-new in partner waits): a live payout the partner keeps PENDING for
// 100 days, past the day (about 91) when the server's history limit terminated its run before the
// patch partner-wait-continues-as-new. The fast tier runs the same test for 20 days
// (test/workflows/payout-partner-wait-continues.test.ts); this one costs about 50 s of CPU more.
describeLongPayoutWait(100);
