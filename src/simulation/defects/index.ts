import { injectDoubleRefund, injectDoubleSubmit, injectDroppedLateSuccess, injectFeeMiscomputed, injectOverdraftRace, injectSequenceGap, injectSkippedPosting, injectUnsignedWebhook } from './catalogue';
import { injectLateReturnRefusalFinal, injectOldShapeDeadline, injectResolutionEvidenceFinal, injectRestartRefusalFinal, injectRetryAfterLateSuccess } from './issue-43';
import type { DefectTarget } from './target';

export type { DefectTarget } from './target';

/**
 * Defects the simulation can inject on purpose, to show that it finds them (`--defect NAME`): the
 * catalogue (catalogue.ts; issue 44), issue 33's first, and issue 43's findings (issue-43.ts). Never
 * used outside the simulator and its tests.
 */
export const DEFECTS = [
  'skip-charge-posting',
  'double-submit',
  'partner-pays-twice',
  'dropped-late-success',
  'double-refund',
  'fee-miscomputed',
  'overdraft-race',
  'unsigned-webhook',
  'sequence-gap',
  'restart-refusal-final',
  'retry-after-late-success',
  'late-return-refusal-final',
  'resolution-evidence-final',
  'old-shape-deadline',
] as const;

export type DefectName = (typeof DEFECTS)[number];

/** Installs a defect by name; answers its remover. */
export function injectDefect(name: DefectName, target: DefectTarget): () => void {
  switch (name) {
    case 'skip-charge-posting':
      return injectSkippedPosting(target);
    case 'double-submit':
      return injectDoubleSubmit(target);
    case 'partner-pays-twice':
      return injectDoubleSubmit(target, ['disbursement']);
    case 'dropped-late-success':
      return injectDroppedLateSuccess(target);
    case 'double-refund':
      return injectDoubleRefund(target);
    case 'fee-miscomputed':
      return injectFeeMiscomputed(target);
    case 'overdraft-race':
      return injectOverdraftRace(target);
    case 'unsigned-webhook':
      return injectUnsignedWebhook(target);
    case 'sequence-gap':
      return injectSequenceGap(target);
    case 'restart-refusal-final':
      return injectRestartRefusalFinal(target);
    case 'retry-after-late-success':
      return injectRetryAfterLateSuccess(target);
    case 'late-return-refusal-final':
      return injectLateReturnRefusalFinal(target);
    case 'resolution-evidence-final':
      return injectResolutionEvidenceFinal(target);
    case 'old-shape-deadline':
      return injectOldShapeDeadline(target);
  }
}
