/** The webhooks pages' rules, appended to the portal's one stylesheet (src/web/portal/styles.ts). */
export const WEBHOOKS_CSS = `#register-endpoint input[type=url],#register-endpoint input[type=text]{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}
.wh-hint{font-size:.85rem;color:#4a5058;margin:.3rem 0}
label.wh-event{min-width:15rem}
.wh-url{word-break:break-all}
.wh-status{font-weight:600}
.wh-status-succeeded,.wh-status-active,.wh-status-completed{color:#135c2a}
.wh-status-failed,.wh-status-disabled{color:#a1160a}
.wh-status-pending,.wh-status-skipped,.wh-status-running{color:#6b3a00}
.wh-healthy{color:#135c2a}
.wh-failing{color:#a1160a;font-weight:600}
.wh-details{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:1rem 0}
.wh-details dt{font-weight:600}
.wh-details dd{margin:0}
.wh-actions form{display:inline}
.wh-delete{margin-top:.8rem}
.wh-filter{margin:.5rem 0 1rem}
.wh-filter label{display:inline-block;margin-right:.5rem}
.wh-pager a{margin-right:1rem}
.wh-pre{font-family:ui-monospace,monospace;font-size:.8rem;white-space:pre-wrap;overflow-wrap:anywhere;background:#f1f3f5;color:#1a1a1a;border:1px solid #c4c9cf;padding:.5rem;margin:0}
.wh-request{max-width:24rem}
.wh-response{min-width:11rem;max-width:16rem}
#attempts td,#attempts th{font-size:.85rem}
`;
