import { describeLongPayoutWait } from './support/payout-long-wait';

// Issue 43 (Medium: no continue-as-new in partner waits): a live payout the partner keeps PENDING.
// 20 days here: several runs, and the two-hourly polls after the first week; each run stops at the
// same history threshold, so the 100 days past the old limit (about day 91) only repeat runs: they
// run in the system tier (test/system/payout-wait-100-days.test.ts).
describeLongPayoutWait(20);
