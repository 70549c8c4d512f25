/**
 * Masks a customer identifier (phone number, account or card number): the last four characters stay,
 * and the first three when the identifier is long enough that they reveal little.
 */
export function maskIdentifier(identifier: string): string {
  const compact = identifier.replace(/\s+/g, '');
  if (compact.length <= 4) return '*'.repeat(compact.length);
  const head = compact.length >= 10 ? compact.slice(0, 3) : '';
  const tail = compact.slice(-4);
  return head + '*'.repeat(compact.length - head.length - tail.length) + tail;
}
