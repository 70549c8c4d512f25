/** The balances pages' rules, appended to the portal's one stylesheet (src/web/portal/styles.ts). */
export const BALANCES_CSS = `th.num,td.num,.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
#balances th[scope=row]{font-weight:600}
td.bt-id{word-break:break-all;max-width:14rem}
#balance-transactions time{white-space:nowrap}
.chart{display:block;width:100%;height:auto;margin:.6rem 0;border:1px solid #e1e4e8;border-radius:4px}
#chart-figures{margin:.4rem 0 1.2rem}
#chart-figures summary{cursor:pointer;color:#0b4f9c}
form.filters{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end;margin:.6rem 0}
form.filters label{margin-top:.4rem}
form.filters input[type=text]{min-width:18rem}
form.filters input,form.inline-filter input{font-size:1rem;padding:.3rem}
form.inline-filter{margin:.6rem 0}
.pager a{color:#0b4f9c}
`;
