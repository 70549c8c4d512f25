/** The balances pages' rules, appended to the portal's one stylesheet (src/web/portal/styles.ts). */
export const BALANCES_CSS = ``;
