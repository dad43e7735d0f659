// The checkout page's HTML: server-rendered, whole without JavaScript (the
// form posts the slip, the answer is a page; a verifying page refreshes
// itself through <noscript>); page.js only counts down and polls
// status.json. It shows nothing but its own request's amount, reference and
// the shop's name.
import type { PageState } from './state.js';
import { TEXTS, type Lang, type TextKey } from './texts.js';

export interface PageView {
  lang: Lang;
  /** The page's own path (/checkout/<id>/<token>), for the form, the picture and the switch. */
  base: string;
  shop: string;
  amount: string;
  reference: string;
  state: PageState;
  /** While verifying: the newest slip being checked (its verification id), whose end …/checked tells. */
  checking?: string;
  expiresAt: Date;
  /** The answer to an upload, when this page is one. */
  verdict?: TextKey;
}

const escapeHtml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function checkoutPage(view: PageView): string {
  const t = TEXTS[view.lang];
  const other: Lang = view.lang === 'th' ? 'en' : 'th';
  const q = `?lang=${view.lang}`;
  const stateText = { pending: t.pending, verifying: t.verifying, paid: t.paid, expired: t.expired, cancelled: t.cancelled }[view.state];
  const bangkok = view.expiresAt.toLocaleTimeString(view.lang === 'th' ? 'th-TH' : 'en-GB', { timeZone: 'Asia/Bangkok', hour: '2-digit', minute: '2-digit' });
  const pending = view.state === 'pending';
  // Where a verifying page goes once its check has ended (routes.ts): the signed successUrl, or this page with its answer.
  const checked = escapeHtml(`${view.base}/checked${q}${view.checking ? `&slip=${view.checking}` : ''}`);
  return `<!doctype html>
<html lang="${view.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(t.title)}</title>
${view.state === 'verifying' ? `<noscript><meta http-equiv="refresh" content="10;url=${checked}"></noscript>
` : ''}<link rel="stylesheet" href="/checkout/assets/page.css">
</head>
<body data-state="${view.state}" data-status-url="${view.base}/status.json" data-expires-at="${view.expiresAt.toISOString()}" data-checked-url="${checked}">
<main>
<nav><a id="lang" href="${view.base}?lang=${other}">${escapeHtml(t.switchTo)}</a></nav>
<h1 id="shop">${escapeHtml(view.shop)}</h1>
<p class="amount"><span>${escapeHtml(t.amount)}</span> <strong id="amount">฿${escapeHtml(view.amount)}</strong></p>
<p class="reference">${escapeHtml(t.reference)}: <span id="reference">${escapeHtml(view.reference)}</span></p>
${view.verdict ? `<p id="verdict" class="verdict" role="alert">${escapeHtml(t[view.verdict])}</p>` : ''}
<p id="state" class="state state-${view.state}" data-text-paid="${escapeHtml(t.paid)}" data-text-expired="${escapeHtml(t.expired)}" data-text-cancelled="${escapeHtml(t.cancelled)}">${escapeHtml(stateText)}</p>
${
  pending
    ? `<section id="pay">
<p class="countdown">${escapeHtml(t.expiresIn)}: <time id="countdown" datetime="${view.expiresAt.toISOString()}">${escapeHtml(bangkok)}</time></p>
<img id="qr" src="${view.base}/qr.png${q}" width="480" height="616" alt="PromptPay QR ฿${escapeHtml(view.amount)}">
<p>${escapeHtml(t.scan)}</p>
<p><a id="save" class="button" href="${view.base}/qr.png${q}&amp;download=1" download="promptpay-${escapeHtml(view.reference.replace(/[^\w-]/g, '_'))}.png">${escapeHtml(t.save)}</a></p>
<form id="upload" method="post" action="${view.base}${q}" enctype="multipart/form-data">
<label for="slip">${escapeHtml(t.upload)}</label>
<input id="slip" name="slip" type="file" accept="image/*" required>
<button type="submit">${escapeHtml(t.send)}</button>
</form>
</section>`
    : ''
}
${view.verdict ? `<p><a href="${view.base}${q}">${escapeHtml(t.back)}</a></p>` : ''}
</main>
<script src="/checkout/assets/page.js" defer></script>
</body>
</html>
`;
}

export const PAGE_CSS = `*{box-sizing:border-box}body{margin:0;font-family:system-ui,"Noto Sans Thai",sans-serif;background:#f3f5f8;color:#111}
main{max-width:480px;margin:0 auto;padding:16px;background:#fff;min-height:100vh}nav{text-align:right}
h1{font-size:1.3rem;margin:.5rem 0}.amount strong{display:block;font-size:2.6rem;color:#113566}
.reference{color:#444}.state{font-weight:bold}.state-paid{color:#0a7a2f;font-size:1.5rem}.state-verifying{color:#113566;font-size:1.2rem}.state-expired,.state-cancelled{color:#a30000}
.verdict{background:#fff4e5;border:1px solid #f0a020;padding:.75rem;border-radius:8px}
#qr{width:100%;height:auto;display:block;margin:0 auto}.button,button{display:inline-block;padding:.8rem 1.2rem;border-radius:8px;border:0;background:#113566;color:#fff;text-decoration:none;font-size:1rem}
form{display:grid;gap:.6rem;margin-top:1rem}input[type=file]{font-size:1rem}
`;

// Counts down and asks status.json every few seconds. On paid, expired or
// cancelled a pending page shows that state in place. A verifying page, or a
// pending one whose request starts verifying (a slip sent from elsewhere), goes
// to …/checked instead: the server knows what its end means (the signed
// successUrl when paid, the unconfirmed answer when open again), and the
// no-JavaScript page's refresh goes there too.
export const PAGE_JS = `(function(){var b=document.body,s=b.dataset.state;if(s!=='pending'&&s!=='verifying')return;
var end=Date.parse(b.dataset.expiresAt),c=document.getElementById('countdown');
function tick(){var t=Math.max(0,Math.round((end-Date.now())/1000));if(c)c.textContent=Math.floor(t/60)+':'+String(t%60).padStart(2,'0');}
tick();setInterval(tick,1000);
function poll(){fetch(b.dataset.statusUrl,{cache:'no-store'}).then(function(r){return r.json()}).then(function(j){
if(j.status===s){setTimeout(poll,3000);return;}
if(s==='verifying'||j.status==='verifying'){location.replace(b.dataset.checkedUrl);return;}
var el=document.getElementById('state');el.textContent=el.dataset['text'+j.status.charAt(0).toUpperCase()+j.status.slice(1)]||j.status;
el.className='state state-'+j.status;b.dataset.state=j.status;var p=document.getElementById('pay');if(p)p.remove();}).catch(function(){setTimeout(poll,10000);});}
setTimeout(poll,3000);})();
`;
