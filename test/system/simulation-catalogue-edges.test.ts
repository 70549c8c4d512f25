/**
 * The defect catalogue is caught (issue 44), second half: the defects at the engine's edges (a race at
 * the API, what leaves as a webhook, what reaches the partner and what comes back from it), each in a
 * fresh engine with its plan (test/support/catalogue-plans.ts). The first half:
 * simulation-catalogue-books.test.ts.
 */
import { catalogueCaught } from '../support/catalogue-caught';

jest.setTimeout(120_000);

catalogueCaught(['overdraft-race', 'unsigned-webhook', 'double-submit', 'dropped-late-success']);
