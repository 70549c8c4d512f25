/** The settings pages' rules, appended to the portal's one stylesheet (src/web/portal/styles.ts). */
export const SETTINGS_CSS = ``;
