/** The payments pages' rules, appended to the portal's one stylesheet (src/web/portal/styles.ts). */
export const PAYMENTS_CSS = `main.payments{max-width:75rem}
.pay-tabs{display:flex;flex-wrap:wrap;gap:.25rem;border-bottom:1px solid #c4c9cf;margin:.5rem 0 1rem}
.pay-tabs a{display:inline-block;padding:.45rem .9rem;margin:0;color:#0b4f9c;border:1px solid transparent;border-bottom:none;border-radius:4px 4px 0 0}
.pay-tabs a[aria-current=page]{color:#1a1a1a;background:#fff;border-color:#c4c9cf;border-bottom:2px solid #fff;margin-bottom:-1px;font-weight:700}
.pay-filters{display:flex;flex-wrap:wrap;align-items:flex-end;gap:.2rem 1rem;margin:0 0 1rem;padding:.6rem .8rem;background:#f6f7f9;border:1px solid #d0d4da;border-radius:4px}
.pay-field label{margin:.3rem 0 .2rem}
.pay-filters input[type=text],.pay-filters input[type=date]{font-size:1rem;padding:.3rem;border:1px solid #6b7280;border-radius:3px}
.pay-filters select{border:1px solid #6b7280;border-radius:3px}
.pay-actions{padding-bottom:.1rem}
.pay-actions a{color:#0b4f9c;margin-left:.3rem}
.payments-table caption,#related-entries caption{text-align:left;font-weight:600;padding:.3rem 0}
td.num,th.num{text-align:right;white-space:nowrap}
.masked{font-family:ui-monospace,monospace}
.pay-status{display:inline-block;padding:.05rem .45rem;border-radius:3px;font-size:.85rem;font-weight:600;background:#eceff3;color:#1f2933;white-space:nowrap}
.pay-status-succeeded,.pay-status-paid,.pay-status-won{background:#e6f4ea;color:#135c2a}
.pay-status-failed,.pay-status-lost,.pay-status-expired,.pay-status-reversed{background:#fdecea;color:#8a1308}
.pay-status-needs_response,.pay-status-held_for_review,.pay-status-awaiting_action{background:#fff3e0;color:#6b3a00}
.pay-paging{margin:1rem 0}
.pay-paging a{color:#0b4f9c;margin-right:1rem;font-weight:600}
.pay-back a{color:#0b4f9c}
.pay-summary{font-size:1.1rem}
.pay-review{margin:.8rem 0}
.pay-review h2{margin:0 0 .3rem;font-size:1.1rem}
.pay-review p{margin:0}
.pay-fields{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1.2rem;margin:0}
.pay-fields dt{font-weight:600;color:#374151}
.pay-fields dd{margin:0;word-break:break-word}
.pay-json{font-family:ui-monospace,monospace;background:#f1f3f5;border:1px solid #c4c9cf;padding:.6rem;overflow-x:auto}
.pay-text{white-space:pre-wrap}
.pay-timeline{padding-left:1.6rem}
.pay-timeline li{padding:.3rem 0;border-left:2px solid #0b5fbd;padding-left:.6rem;margin-left:-.2rem}
.pay-event{font-weight:600}
.pay-seq{color:#4b5563;font-size:.85rem}
main.payments a{color:#0b4f9c}
`;
