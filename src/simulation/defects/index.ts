import { injectDoubleRefund, injectDoubleSubmit, injectDroppedLateSuccess, injectFeeMiscomputed, injectOverdraftRace, injectSequenceGap, injectSkippedPosting, injectUnsignedWebhook } from './catalogue';
import { injectLateReturnRefusalFinal, injectOldShapeDeadline, injectResolutionEvidenceFinal, injectRestartRefusalFinal, injectRetryAfterLateSuccess } from './issue-43';
import type { DefectTarget } from './target';

export type { DefectTarget } from './target';

/**
 * Defects the simulation can inject on purpose, to show that it finds them (`--defect NAME`): the
 * catalogue (catalogue.ts; issue 44), issue 33's first, and issue 43's findings (issue-43.ts), each
 * by the function that installs it and answers its remover. Never used outside the simulator and its
 * tests.
 */
const INJECTORS = {
  'skip-charge-posting': injectSkippedPosting,
  'double-submit': (target: DefectTarget) => injectDoubleSubmit(target),
  'partner-pays-twice': (target: DefectTarget) => injectDoubleSubmit(target, ['disbursement']),
  'dropped-late-success': injectDroppedLateSuccess,
  'double-refund': injectDoubleRefund,
  'fee-miscomputed': injectFeeMiscomputed,
  'overdraft-race': injectOverdraftRace,
  'unsigned-webhook': injectUnsignedWebhook,
  'sequence-gap': injectSequenceGap,
  'restart-refusal-final': injectRestartRefusalFinal,
  'retry-after-late-success': injectRetryAfterLateSuccess,
  'late-return-refusal-final': injectLateReturnRefusalFinal,
  'resolution-evidence-final': injectResolutionEvidenceFinal,
  'old-shape-deadline': injectOldShapeDeadline,
} satisfies Record<string, (target: DefectTarget) => () => void>;

export type DefectName = keyof typeof INJECTORS;

export const DEFECTS = Object.keys(INJECTORS) as DefectName[];

/** Installs a defect by name; answers its remover. */
export function injectDefect(name: DefectName, target: DefectTarget): () => void {
  return INJECTORS[name](target);
}
