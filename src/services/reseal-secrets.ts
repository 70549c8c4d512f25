import { sealAccountNumber } from '../domain/settlement-account';
import type { Orm } from '../persistence/orm';
import { MERCHANT_ACCOUNT_COLUMNS, resealAccountBatch, resealSecretBatch, SETTLEMENT_DESTINATION_COLUMNS, type AccountReseal } from '../persistence/merchants/sealed-secret-store';
import type { SecretBox } from '../support/secret-box';
import { resealPartyBatch } from '../persistence/payment-party-store';
import { resealCardTokenBatch } from '../persistence/charges/card-submission-store';

export interface ResealCounts {
  /** Secrets opened (with SECRETS_KEY or a key of SECRETS_KEY_PREVIOUS) and sealed again with SECRETS_KEY. */
  resealed: number;
  /** Secrets already sealed with SECRETS_KEY, left as they are. */
  already_current: number;
  /** Settlement account numbers: merchants' accounts and settlement batches' destinations. */
  settlement_accounts: AccountSealCounts;
  /** Payments' counterparties (payment_parties: a charge's customer, a payout's recipient). */
  payment_parties: { resealed: number; already_current: number };
  /** Live cards' aggregator tokens (issue 45, `card_submissions.token_sealed`). */
  card_tokens: { resealed: number; already_current: number };
}

export interface AccountSealCounts {
  /** Plain numbers (rows written before migration 20261125000005) sealed with SECRETS_KEY; the plain text cleared. */
  sealed: number;
  /** Numbers opened with a key of SECRETS_KEY_PREVIOUS (or an older format) and sealed again with SECRETS_KEY. */
  resealed: number;
  /** Numbers already sealed with SECRETS_KEY, left as they are. */
  already_current: number;
}

/**
 * Seals settlement account numbers (merchants' and batches' destinations, migration
 * 20261125000005) in batches of `batchSize` rows, each batch its own transaction, clearing the plain
 * text. `plaintext` (every worker at start, before it polls; idempotent, and cheap once done: a
 * partial index holds the rows left) seals the plain numbers only; `all` (`secrets reseal`) also
 * re-seals the sealed ones not sealed with SECRETS_KEY. A number no key of the ring opens stops it
 * with the row's id (batches done so far stay done). Never logs or returns a number.
 */
export async function sealSettlementAccounts(orm: Orm, box: SecretBox, rows: 'plaintext' | 'all' = 'plaintext', batchSize = 200): Promise<AccountSealCounts> {
  const counts: AccountSealCounts = { sealed: 0, resealed: 0, already_current: 0 };
  for (const columns of [MERCHANT_ACCOUNT_COLUMNS, SETTLEMENT_DESTINATION_COLUMNS]) {
    const reseal: AccountReseal = (account, id) => {
      if (account.plaintext !== null) {
        counts.sealed++;
        return sealAccountNumber(box, account.plaintext);
      }
      if (account.sealed === null || box.isCurrent(account.sealed)) {
        counts.already_current++;
        return null;
      }
      let plaintext: string;
      try {
        plaintext = box.open(account.sealed);
      } catch (error) {
        throw new Error(`${columns.owner} ${id}: settlement account number: ${(error as Error).message}`);
      }
      counts.resealed++;
      return sealAccountNumber(box, plaintext);
    };
    for (let after: string | null = ''; after !== null; ) after = await resealAccountBatch(orm, columns, rows, after, batchSize, reseal);
  }
  return counts;
}

/**
 * `cli secrets reseal`: re-seals every sealed secret in the database (webhook endpoint signing
 * secrets, current and previous) with the current key, in batches of `batchSize` endpoints, each
 * batch its own transaction; then the settlement account numbers (sealSettlementAccounts `all`:
 * plain ones sealed, old-key ones re-sealed; counted apart, in `settlement_accounts`), then the
 * payments' counterparties (`payment_parties`, counted apart), then live cards' aggregator tokens
 * (`card_tokens`). Idempotent: a
 * second run finds everything current. A secret that no key of the ring opens stops the command
 * with the endpoint's (merchant's, settlement's) id (batches done so far stay done).
 */
export async function resealSecrets(orm: Orm, box: SecretBox, batchSize = 200): Promise<ResealCounts> {
  const counts: Omit<ResealCounts, 'settlement_accounts' | 'payment_parties' | 'card_tokens'> = { resealed: 0, already_current: 0 };
  const reseal = (sealed: string, endpointId: string): string | null => {
    if (box.isCurrent(sealed)) {
      counts.already_current++;
      return null;
    }
    let plaintext: string;
    try {
      plaintext = box.open(sealed);
    } catch (error) {
      throw new Error(`webhook endpoint ${endpointId}: ${(error as Error).message}`);
    }
    counts.resealed++;
    return box.seal(plaintext);
  };
  for (let after: string | null = ''; after !== null; ) after = await resealSecretBatch(orm, after, batchSize, reseal);
  const settlementAccounts = await sealSettlementAccounts(orm, box, 'all', batchSize);
  const parties = { resealed: 0, already_current: 0 };
  const resealParty = resealer(box, parties, 'counterparty');
  for (let after: string | null = ''; after !== null; ) after = await resealPartyBatch(orm, after, batchSize, resealParty);
  const cardTokens = { resealed: 0, already_current: 0 };
  const resealToken = resealer(box, cardTokens, 'card token');
  for (let after: string | null = ''; after !== null; ) after = await resealCardTokenBatch(orm, after, batchSize, resealToken);
  return { ...counts, settlement_accounts: settlementAccounts, payment_parties: parties, card_tokens: cardTokens };
}

/** A payment's sealed value re-sealed with the current key (null: already current), counted; one no key opens names the payment. */
function resealer(box: SecretBox, counts: { resealed: number; already_current: number }, what: string) {
  return (sealed: string, paymentId: string): string | null => {
    if (box.isCurrent(sealed)) {
      counts.already_current++;
      return null;
    }
    let plaintext: string;
    try {
      plaintext = box.open(sealed);
    } catch (error) {
      throw new Error(`payment ${paymentId}: ${what}: ${(error as Error).message}`);
    }
    counts.resealed++;
    return box.seal(plaintext);
  };
}
