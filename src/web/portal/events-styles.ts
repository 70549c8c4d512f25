/** The events pages' rules, appended to the portal's one stylesheet (src/web/portal/styles.ts). */
export const EVENTS_CSS = `pre.json{background:#f1f3f5;border:1px solid #c4c9cf;border-radius:4px;padding:.8rem;overflow:auto;max-height:40rem;font-size:.85rem;white-space:pre-wrap;word-break:break-word}
#events td:first-child{font-variant-numeric:tabular-nums}
#from-sequence{font-size:1rem;padding:.3rem;width:10rem}
label.ev-type{min-width:15rem}
`;
