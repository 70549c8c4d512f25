/** The settings pages' rules, appended to the portal's one stylesheet (src/web/portal/styles.ts). */
export const SETTINGS_CSS = `dl.facts{display:grid;grid-template-columns:minmax(10rem,max-content) 1fr;gap:.4rem 1rem;margin:.6rem 0 1.2rem}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
dl.facts small{display:block;color:#4a5563}
`;
