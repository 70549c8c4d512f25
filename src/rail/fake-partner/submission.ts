import type { RailParty, RailProduct } from '../partner-rail';
import { PARTY_FIELD, type MomoSubmission } from '../momo-protocol';

const PARTY_ID_TYPES = new Set(['MSISDN', 'EMAIL', 'PARTY_CODE', 'BANK_ACCOUNT']);

/** What every submission carries: the amount, currency, externalId and messages. */
export type SubmissionFields = Pick<MomoSubmission, 'amount' | 'currency' | 'externalId' | 'payerMessage' | 'payeeNote'>;

/** The fields every submission carries, checked as the partner would; a problem's message otherwise. */
export function submissionFields(body: unknown): SubmissionFields | string {
  if (typeof body !== 'object' || body === null) return 'the body must be a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.amount !== 'string' || !/^[0-9]+(\.[0-9]+)?$/.test(b.amount) || !(Number(b.amount) > 0)) return 'amount must be a positive decimal string';
  if (typeof b.currency !== 'string' || !/^[A-Z]{3}$/.test(b.currency)) return 'currency must be an ISO 4217 code';
  if (typeof b.externalId !== 'string' || !b.externalId) return 'externalId is required';
  return {
    amount: b.amount,
    currency: b.currency,
    externalId: b.externalId,
    payerMessage: typeof b.payerMessage === 'string' ? b.payerMessage : '',
    payeeNote: typeof b.payeeNote === 'string' ? b.payeeNote : '',
  };
}

/** A request-to-pay's or a transfer's body (its `payer` or `payee`), checked as the partner would; a problem's message otherwise. */
export function partySubmission(product: RailProduct, body: unknown): MomoSubmission | string {
  const fields = submissionFields(body);
  if (typeof fields === 'string') return fields;
  const field = PARTY_FIELD[product];
  const party = (body as Record<string, unknown>)[field] as Partial<RailParty> | undefined;
  if (typeof party !== 'object' || party === null || typeof party.partyIdType !== 'string' || !PARTY_ID_TYPES.has(party.partyIdType) || typeof party.partyId !== 'string' || !party.partyId) {
    return `${field} must be {partyIdType, partyId}`;
  }
  const { amount, currency, externalId, payerMessage, payeeNote } = fields;
  return { amount, currency, externalId, [field]: { partyIdType: party.partyIdType, partyId: party.partyId }, payerMessage, payeeNote };
}
