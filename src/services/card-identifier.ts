import cardValidator from 'card-validator';

/**
 * Whether a customer identifier is a card number (a known brand's length and prefix, spaces or dashes
 * between the digits, passing the Luhn check): a live card charge refuses one (issue 45), so a card
 * number never reaches a table, an event or a workflow through the API. The hosted page alone takes it.
 */
export function looksLikeCardNumber(identifier: string): boolean {
  const digits = identifier.replace(/[\s-]/g, '');
  return /^[0-9]{12,19}$/.test(digits) && cardValidator.number(digits).isValid;
}
