/**
 * The defect catalogue is caught (issue 44, "Proof: each catalogue defect caught, a test per defect in
 * npm test"; in the system tier since stop 60, to keep npm test under 10 minutes), first half: the defects of our own books (src/simulation/defects/catalogue.ts), each in
 * a fresh engine with its plan (test/support/catalogue-plans.ts). The other half:
 * simulation-catalogue-edges.test.ts; the same plans without their defects hold every invariant:
 * test/system/simulation-catalogue-clean.test.ts.
 */
import { catalogueCaught } from '../support/catalogue-caught';

jest.setTimeout(120_000);

catalogueCaught(['skip-charge-posting', 'fee-miscomputed', 'sequence-gap', 'double-refund']);
