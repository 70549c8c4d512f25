import type { IdKind } from './ids';
import { ACCOUNTS, type Account, type Transfer } from './ledger';

/**
 * Balance transactions (GET /v1/balance-transactions): the balance history a merchant reconciles
 * against. One item per ledger posting on the merchant's `merchant_available` or `merchant_reserved`
 * account, except a payout post's reserved posting (−total_debit), shown as two items so the fee is
 * visible on its own: a `payout` item (net −amount) and a `fee` item (net −(platform + tax)).
 *
 * Every item has `net = amount - fee`, and the nets of one balance (and currency) add up to that
 * balance: each item's net is its posting, or, for the split, the two nets add up to the posting.
 *
 * - A charge capture's available posting: amount = the gross charge amount, fee = the platform fee
 *   and tax of that transfer, net = the posting (the merchant amount). A capture reversal is its
 *   exact opposite (all three negative).
 * - Everything else: amount = net = the posting, fee = 0.
 */

export const BALANCE_TRANSACTION_TYPES = ['charge', 'refund', 'payout', 'payout_reversal', 'settlement', 'dispute', 'fee'] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

export type TransferKind = Transfer['kind'];

/** The `balance` of an item, and the ledger account it reads. */
export type BalanceName = 'available' | 'reserved';
export const BALANCE_ACCOUNTS: Readonly<Record<BalanceName, Account>> = { available: ACCOUNTS.merchantAvailable, reserved: ACCOUNTS.merchantReserved };

/** Which part of a posting an item shows: the whole posting (`''`), or the fee split off a payout post. */
export type BalancePart = '' | 'fee';

/** The resources whose transfers post on a merchant's balances (the item's `source`). */
export type SourceKind = Extract<IdKind, 'charge' | 'payout' | 'refund' | 'settlement' | 'dispute'>;
export const SOURCE_KINDS: readonly SourceKind[] = ['charge', 'payout', 'refund', 'settlement', 'dispute'];

interface KindInfo {
  type: Exclude<BalanceTransactionType, 'fee'>;
  source: SourceKind;
  /** The transfer id is `<source id>:<step>` (src/domain/*-ledger.ts). */
  step: string;
}

/**
 * Every transfer kind of src/domain/ledger.ts (a Record: a new kind does not compile until it is
 * listed here). `hold` and `hold_void` post on merchant_pending only and never show; they are listed
 * so the table is total.
 */
export const TRANSFER_KINDS: Readonly<Record<TransferKind, KindInfo>> = {
  hold: { type: 'charge', source: 'charge', step: 'hold' },
  hold_void: { type: 'charge', source: 'charge', step: 'hold_void' },
  capture: { type: 'charge', source: 'charge', step: 'capture' },
  capture_reversal: { type: 'charge', source: 'charge', step: 'capture_reversal' },
  payout_reserve: { type: 'payout', source: 'payout', step: 'reserve' },
  payout_post: { type: 'payout', source: 'payout', step: 'post' },
  payout_release: { type: 'payout', source: 'payout', step: 'release' },
  payout_reversal: { type: 'payout_reversal', source: 'payout', step: 'reversal' },
  refund_reserve: { type: 'refund', source: 'refund', step: 'reserve' },
  refund_post: { type: 'refund', source: 'refund', step: 'post' },
  refund_release: { type: 'refund', source: 'refund', step: 'release' },
  settlement_sweep: { type: 'settlement', source: 'settlement', step: 'sweep' },
  settlement_post: { type: 'settlement', source: 'settlement', step: 'post' },
  settlement_release: { type: 'settlement', source: 'settlement', step: 'release' },
  dispute_hold: { type: 'dispute', source: 'dispute', step: 'hold' },
  dispute_release: { type: 'dispute', source: 'dispute', step: 'release' },
  dispute_debit: { type: 'dispute', source: 'dispute', step: 'debit' },
  // Late answers (issue 29): the charge's late kinds never touch a merchant balance (listed for totality).
  late_receipt: { type: 'charge', source: 'charge', step: 'late_receipt' },
  late_credit: { type: 'charge', source: 'charge', step: 'late_credit' },
  late_return: { type: 'charge', source: 'charge', step: 'late_return' },
  late_return_paid: { type: 'charge', source: 'charge', step: 'late_return_paid' },
  payout_late_paid: { type: 'payout', source: 'payout', step: 'late_paid' },
  payout_late_reserve: { type: 'payout', source: 'payout', step: 'late_reserve' },
  payout_late_clear: { type: 'payout', source: 'payout', step: 'late_clear' },
  settlement_late_paid: { type: 'settlement', source: 'settlement', step: 'late_paid' },
  settlement_late_sweep: { type: 'settlement', source: 'settlement', step: 'late_sweep' },
  settlement_late_clear: { type: 'settlement', source: 'settlement', step: 'late_clear' },
  refund_late_paid: { type: 'refund', source: 'refund', step: 'late_paid' },
  refund_late_reserve: { type: 'refund', source: 'refund', step: 'late_reserve' },
  refund_late_clear: { type: 'refund', source: 'refund', step: 'late_clear' },
};

const KIND_NAMES = Object.keys(TRANSFER_KINDS) as TransferKind[];

/** The accounts that hold fees (a transfer's postings on them are its fee). */
export const FEE_ACCOUNTS: readonly Account[] = [ACCOUNTS.platformFee, ACCOUNTS.tax];
/** Transfer kinds that post fees together with the merchant's money. */
export const FEE_KINDS: readonly TransferKind[] = ['capture', 'capture_reversal', 'payout_post'];
/** The one posting shown as two items (`payout` + `fee`). */
export const FEE_SPLIT = { kind: 'payout_post', account: ACCOUNTS.merchantReserved } as const satisfies { kind: TransferKind; account: Account };

export function typeOfKind(kind: string): Exclude<BalanceTransactionType, 'fee'> {
  const info = (TRANSFER_KINDS as Record<string, KindInfo | undefined>)[kind];
  if (!info) throw new Error(`ledger transfer kind ${kind} has no balance transaction type (src/domain/balance-transaction.ts)`);
  return info.type;
}

/** The items of a posting: one, or two for a payout post's reserved posting with a non-zero fee. */
export function partsOf(kind: string, account: string, fee: bigint): BalancePart[] {
  return kind === FEE_SPLIT.kind && account === FEE_SPLIT.account && fee !== 0n ? ['', 'fee'] : [''];
}

/** What the list's `type` filter selects: postings of these kinds, and the part. */
export function typeFilter(type: BalanceTransactionType): { kinds: TransferKind[]; part: BalancePart } {
  if (type === 'fee') return { kinds: [FEE_SPLIT.kind], part: 'fee' };
  return { kinds: KIND_NAMES.filter((k) => TRANSFER_KINDS[k].type === type), part: '' };
}

/** Every transfer id a source may have posted (the list's `source` filter: a primary-key lookup). */
export function transferIdsOf(sourceKind: SourceKind, sourceId: string): string[] {
  return KIND_NAMES.filter((k) => TRANSFER_KINDS[k].source === sourceKind).map((k) => `${sourceId}:${TRANSFER_KINDS[k].step}`);
}

/** The key of an item: its posting (transfer and account) and part. The list is ordered by (created_at, key), newest first. */
export interface BalanceTransactionKey {
  transferId: string;
  balance: BalanceName;
  part: BalancePart;
}

/**
 * Deterministic id: `bt_<transfer id>:<balance>` and, for a split-off fee, `:fee`; e.g.
 * `bt_txn_…:capture:available`, `bt_po_…:post:reserved:fee`. The same posting always has the same id,
 * and the id gives back the key (a cursor anchor without a lookup).
 */
export function balanceTransactionId(key: BalanceTransactionKey): string {
  return `bt_${key.transferId}:${key.balance}${key.part === 'fee' ? ':fee' : ''}`;
}

/** A resource id (`<prefix>_` + 24 base62), `:`, a step. Test funding uses resource prefixes of its own. */
export const BALANCE_TRANSACTION_ID_PATTERN = '^bt_([a-z]{1,16}_[0-9A-Za-z]{24}:[a-z_]{1,32}):(available|reserved)(:fee)?$';
const ID_SHAPE = new RegExp(BALANCE_TRANSACTION_ID_PATTERN);

/** The key of an id this API gave out, or null for anything else. */
export function parseBalanceTransactionId(id: string): BalanceTransactionKey | null {
  const match = ID_SHAPE.exec(id);
  if (!match) return null;
  const key: BalanceTransactionKey = { transferId: match[1], balance: match[2] as BalanceName, part: match[3] ? 'fee' : '' };
  return balanceTransactionId(key) === id ? key : null;
}

/** One posting row (and part) as the store reads it. */
export interface BalancePostingRow {
  transferId: string;
  account: string;
  kind: string;
  resourceId: string;
  currency: string;
  /** The posting, signed minor units (exact decimal text). */
  amount: string;
  /** The transfer's postings on the fee accounts (0 unless its kind is one of FEE_KINDS). */
  fee: string;
  part: BalancePart;
  /** ISO 8601 UTC, milliseconds. */
  createdAt: string;
}

export interface BalanceTransaction {
  id: string;
  type: BalanceTransactionType;
  source: string;
  balance: BalanceName;
  amount: bigint;
  fee: bigint;
  net: bigint;
  currency: string;
  createdAt: string;
}

function balanceOf(account: string): BalanceName {
  if (account === ACCOUNTS.merchantAvailable) return 'available';
  if (account === ACCOUNTS.merchantReserved) return 'reserved';
  throw new Error(`account ${account} is not a merchant balance`);
}

export function balanceTransactionOf(row: BalancePostingRow): BalanceTransaction {
  const balance = balanceOf(row.account);
  const posting = BigInt(row.amount);
  const fees = FEE_KINDS.includes(row.kind as TransferKind) ? BigInt(row.fee) : 0n;
  const base = { id: balanceTransactionId({ transferId: row.transferId, balance, part: row.part }), source: row.resourceId, balance, currency: row.currency, createdAt: row.createdAt };
  if (row.part === 'fee') return { ...base, type: 'fee', amount: -fees, fee: 0n, net: -fees };
  const split = partsOf(row.kind, row.account, fees).length > 1;
  // The split's payout item leaves the fee to the fee item; any other posting carries its transfer's fee.
  const net = split ? posting + fees : posting;
  const fee = split ? 0n : fees;
  return { ...base, type: typeOfKind(row.kind), amount: net + fee, fee, net };
}

/** The items of one posting (what the store's lateral join yields for it). */
export function balanceTransactionsOf(row: Omit<BalancePostingRow, 'part'>): BalanceTransaction[] {
  const fees = FEE_KINDS.includes(row.kind as TransferKind) ? BigInt(row.fee) : 0n;
  return partsOf(row.kind, row.account, fees).map((part) => balanceTransactionOf({ ...row, part }));
}

/** The item as JSON text: amounts as exact integer literals (a sum of postings may pass 2^53). */
export function balanceTransactionJson(t: BalanceTransaction): string {
  return (
    `{"id":${JSON.stringify(t.id)},"object":"balance_transaction","type":${JSON.stringify(t.type)},"source":${JSON.stringify(t.source)},` +
    `"balance":${JSON.stringify(t.balance)},"amount":${t.amount.toString()},"fee":${t.fee.toString()},"net":${t.net.toString()},` +
    `"currency":${JSON.stringify(t.currency)},"created_at":${JSON.stringify(t.createdAt)}}`
  );
}
