import type { RailParty } from '../partner-rail';
import { RailRequestInvalid } from '../rail-errors';
import { BANK_TRANSFER_TYPE, FRANCO_COUNTRY_BY_DIAL_CODE, GHANA_NETWORKS, MOBILE_MONEY_CHARGE_TYPE, WALLET_TRANSFER_NETWORK } from './protocol';

/**
 * Our party (src/rail/partner-rail.ts RailParty) in the aggregator's fields (docs/aggregator.md,
 * "Parties"). The engine keeps a wallet as its number only and a bank account as
 * `<bank code>:<account number>`; the aggregator wants a wallet's network too, which the adapter
 * finds from the currency (and, in Ghana, the number's prefix). A party it cannot place is a request
 * it cannot send: RailRequestInvalid, never a guess that could pay the wrong wallet.
 */

/** A BANK_ACCOUNT party's bank code and account number. */
export function bankAccountOf(party: RailParty): { bank: string; account: string } {
  const at = party.partyId.indexOf(':');
  const bank = at > 0 ? party.partyId.slice(0, at).trim() : '';
  const account = at > 0 ? party.partyId.slice(at + 1).replace(/\s/g, '') : '';
  if (!bank || !account) throw new RailRequestInvalid(`a BANK_ACCOUNT party must be "<bank code>:<account number>", got one without ${bank ? 'an account number' : 'a bank code'}`);
  return { bank, account };
}

/** An MSISDN party's number: digits with the country code. */
function phoneOf(party: RailParty): string {
  if (party.partyIdType !== 'MSISDN') throw new RailRequestInvalid(`a ${party.partyIdType} party has no phone number`);
  const digits = party.partyId.replace(/^\+/, '');
  if (!/^[0-9]{8,15}$/.test(digits)) throw new RailRequestInvalid('an MSISDN party must be 8 to 15 digits with the country code');
  return digits;
}

function ghanaNetwork(phone: string): (typeof GHANA_NETWORKS)[number] {
  const prefix = phone.startsWith('233') ? phone.slice(3, 5) : '';
  const network = GHANA_NETWORKS.find((n) => n.prefixes.includes(prefix));
  if (!network) throw new RailRequestInvalid(`a GHS wallet must be a Ghana number (233 and a network prefix we know: ${GHANA_NETWORKS.flatMap((n) => n.prefixes).join(', ')}); its network cannot be told`);
  return network;
}

/**
 * A CARD party names a card by its last four digits: never a phone number nor an account. Only a
 * refund takes one (its body names no party: the aggregator repays the card it charged); a card
 * charge goes through AggregatorCards (card.ts), with the card, never through `submit`.
 */
function refuseCard(party: RailParty, what: string): void {
  if (party.partyIdType === 'CARD') throw new RailRequestInvalid(`a CARD party cannot be ${what}: a card is charged through AggregatorCards.chargeCard (never a workflow) and only a card charge's refund names one`);
}

/** A collection's charge type and the fields that name its payer. */
export function chargeTarget(party: RailParty, currency: string): { type: string; fields: { phone_number?: string; network?: string; country?: string; account_bank?: string; account_number?: string } } {
  refuseCard(party, "a submitted charge's payer");
  if (party.partyIdType === 'BANK_ACCOUNT') {
    // A bank charge's payer may come without a bank (the API's bank charges name none): the transfer
    // comes into the account the aggregator gives, so the payer's account is only a record.
    if (!party.partyId.includes(':')) {
      const account = party.partyId.replace(/\s/g, '');
      if (!account) throw new RailRequestInvalid('a BANK_ACCOUNT party needs an account number');
      return { type: BANK_TRANSFER_TYPE, fields: { account_number: account } };
    }
    const { bank, account } = bankAccountOf(party);
    return { type: BANK_TRANSFER_TYPE, fields: { account_bank: bank, account_number: account } };
  }
  const type = Object.hasOwn(MOBILE_MONEY_CHARGE_TYPE, currency) ? MOBILE_MONEY_CHARGE_TYPE[currency] : undefined;
  if (!type) throw new RailRequestInvalid(`the aggregator has no mobile-money charge in ${currency} (it has: ${Object.keys(MOBILE_MONEY_CHARGE_TYPE).join(', ')})`);
  const phone = phoneOf(party);
  if (currency === 'GHS') return { type, fields: { phone_number: phone, network: ghanaNetwork(phone).charge } };
  if (type === MOBILE_MONEY_CHARGE_TYPE.XOF) {
    const code = Object.keys(FRANCO_COUNTRY_BY_DIAL_CODE).find((c) => phone.startsWith(c));
    if (!code) throw new RailRequestInvalid(`a ${currency} wallet must be a number of a francophone country we know (${Object.keys(FRANCO_COUNTRY_BY_DIAL_CODE).join(', ')})`);
    return { type, fields: { phone_number: phone, country: FRANCO_COUNTRY_BY_DIAL_CODE[code] } };
  }
  return { type, fields: { phone_number: phone } };
}

/** A transfer's `account_bank` and `account_number`: a bank's code and account, or a wallet's network and number. */
export function transferTarget(party: RailParty, currency: string): { account_bank: string; account_number: string } {
  refuseCard(party, "a transfer's payee");
  if (party.partyIdType === 'BANK_ACCOUNT') {
    const { bank, account } = bankAccountOf(party);
    return { account_bank: bank, account_number: account };
  }
  const phone = phoneOf(party);
  if (currency === 'GHS') return { account_bank: ghanaNetwork(phone).transfer, account_number: phone };
  const network = Object.hasOwn(WALLET_TRANSFER_NETWORK, currency) ? WALLET_TRANSFER_NETWORK[currency] : undefined;
  if (!network) throw new RailRequestInvalid(`the aggregator has no mobile-money transfer in ${currency} (it has: GHS, ${Object.keys(WALLET_TRANSFER_NETWORK).join(', ')})`);
  return { account_bank: network, account_number: phone };
}
