import { BALANCES_CSS } from './balances-styles';
import { EVENTS_CSS } from './events-styles';
import { PAYMENTS_CSS } from './payments-styles';
import { SETTINGS_CSS } from './settings-styles';
import { WEBHOOKS_CSS } from './webhooks-styles';

/** The portal's one stylesheet (served from 'self': the web port's CSP stays strict) and icon. */
const BASE_CSS = `body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#f6f7f9}
.test-mode{background:#8a4b00;color:#fff;text-align:center;padding:.5rem;font-weight:700;letter-spacing:.05em;position:sticky;top:0}
header.bar{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem;padding:.6rem 1.2rem;background:#fff;border-bottom:1px solid #d0d4da}
header.bar .brand{font-weight:700;margin-right:auto}
header.bar form{margin:0;display:inline}
.env{font-weight:700;padding:.15rem .5rem;border-radius:4px}
.env-sandbox{background:#fff3e0;color:#6b3a00}.env-live{background:#e6f4ea;color:#135c2a}
nav a{color:#0b4f9c;margin-right:.6rem}
nav a[aria-current=page]{font-weight:700;text-decoration:none;border-bottom:2px solid #0b4f9c}
main{max-width:60rem;margin:1.5rem auto;background:#fff;padding:1.5rem;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
main.narrow{max-width:26rem}
h1{font-size:1.4rem;margin-top:0}h2{font-size:1.1rem}
label{display:block;font-weight:600;margin:.8rem 0 .3rem}
label.check{display:inline-block;font-weight:400;margin:.2rem 1rem .2rem 0}
input[type=email],input[type=password]{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}
select{font-size:1rem;padding:.3rem}
button{font-size:1rem;padding:.5rem .9rem;margin:.6rem .4rem 0 0;border-radius:4px;border:1px solid #0b4f9c;background:#0b5fbd;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#0b4f9c}
button.danger{background:#fff;color:#a1160a;border-color:#a1160a}
header.bar button{margin:0;padding:.35rem .7rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.4rem;border-bottom:1px solid #e1e4e8;vertical-align:top}
td form{display:inline}
.error{color:#a1160a;font-weight:600}
.notice{background:#eef5ff;border:1px solid #0b5fbd;padding:.8rem;border-radius:4px}
.secret{font-family:ui-monospace,monospace;font-size:1rem;background:#f1f3f5;padding:.6rem;display:block;word-break:break-all;border:1px solid #c4c9cf}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
fieldset{border:1px solid #d0d4da;border-radius:4px;margin:.8rem 0}
`;

export const PORTAL_CSS = [BASE_CSS, PAYMENTS_CSS, BALANCES_CSS, EVENTS_CSS, WEBHOOKS_CSS, SETTINGS_CSS].join('\n');

export const PORTAL_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b5fbd"/></svg>`;
