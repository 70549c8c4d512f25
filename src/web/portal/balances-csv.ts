/**
 * CSV of RFC 4180 (no library in package.json does it): fields separated by commas, lines by CRLF; a
 * field holding a comma, a double quote, CR or LF is quoted, its quotes doubled. A field a spreadsheet
 * would run as a formula (starting with =, +, -, @, a tab or CR) gets a leading single quote, so it
 * reads as text (OWASP "CSV injection"), except a plain number such as -400.00, which stays a number.
 */
export function csvCell(value: string): string {
  const plainNumber = /^-?\d+(\.\d+)?$/.test(value);
  const safe = !plainNumber && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(values: readonly string[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
