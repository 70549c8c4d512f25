/**
 * A first check of a cron expression (SETTLEMENT_SCHEDULE) when the configuration is read, so a typo
 * stops every process at start-up with the setting's name. Temporal validates the ranges when the
 * worker creates or updates the Schedule (src/temporal/settlement-schedule.ts), and a refusal there
 * stops the worker with the same name. Accepted shapes, as Temporal's: 5 fields (minute hour
 * day-of-month month day-of-week), 6 (… year) or 7 (second … year), each of digits, names (JAN, MON)
 * and `* , - / ? L W #`; or a descriptor such as `@daily` or `@every 6h`.
 */
const FIELD = /^[0-9A-Za-z*?,/#-]+$/;
const DESCRIPTOR = /^@(yearly|annually|monthly|weekly|daily|midnight|hourly|every [0-9]+[smhd]([0-9]+[smhd])*)$/;

/** Why `text` cannot be a cron expression, or null when it may be one. */
export function cronProblem(text: string): string | null {
  const expression = text.trim();
  if (expression === '') return 'it is empty';
  if (expression.length > 200) return 'it is longer than 200 characters';
  if (expression.startsWith('@')) return DESCRIPTOR.test(expression) ? null : `"${expression}" is not a descriptor (@daily, @hourly, @every 6h, …)`;
  const fields = expression.split(/\s+/);
  if (fields.length < 5 || fields.length > 7) return `it has ${fields.length} field${fields.length === 1 ? '' : 's'}, not 5 (minute hour day-of-month month day-of-week)`;
  const bad = fields.find((f) => !FIELD.test(f));
  return bad === undefined ? null : `field "${bad}" has characters a cron field cannot have`;
}
