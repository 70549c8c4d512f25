import { MAX_EVIDENCE_LENGTH, type SubmitEvidenceRequest } from '../../domain/dispute-evidence';
import { compile } from '../validate';

export type { SubmitEvidenceRequest };

/**
 * POST /v1/disputes/{id}/evidence: `{"text"}` only, 1 to MAX_EVIDENCE_LENGTH (10,000) characters, not
 * blank. Tab and newline are allowed; other control characters are refused (validate.ts `check`).
 */
export const validateDisputeEvidence = compile<SubmitEvidenceRequest>({
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: {
    text: { type: 'string', minLength: 1, maxLength: MAX_EVIDENCE_LENGTH, pattern: '\\S' },
  },
});
