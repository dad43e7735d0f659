// Sign-in: the token is checked with `me` before it is kept. The form never
// submits natively (and the CSP forbids it), so the token cannot end up in
// the address bar or a server log.
import { h } from '../dom.js';
import { t } from '../i18n/index.js';

export function signInPage(opts: { message?: string; onToken: (token: string) => Promise<string | null>; languageSwitch: HTMLElement }): HTMLElement {
  const m = t().signIn;
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'token-hint',
  });
  const message = h('div', { id: 'sign-in-message', role: 'alert' }, opts.message ? h('p', { class: 'notice warn' }, opts.message) : null);
  const button = h('button', { type: 'submit' }, m.submit);

  const form = h(
    'form',
    {
      method: 'post',
      'aria-labelledby': 'sign-in-title',
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        const token = input.value.trim();
        if (!token) {
          message.replaceChildren(h('p', { class: 'notice error' }, m.enterToken));
          input.focus();
          return;
        }
        button.disabled = true;
        button.textContent = m.checking;
        const problem = await opts.onToken(token);
        if (problem) {
          button.disabled = false;
          button.textContent = m.submit;
          message.replaceChildren(h('p', { class: 'notice error' }, problem));
          input.select();
          input.focus();
        }
      },
    },
    h('label', { for: 'token' }, m.tokenLabel),
    input,
    h('p', { id: 'token-hint', class: 'hint' }, m.hintBefore, h('code', {}, 'npx slipgate admin-tokens create --name you --role viewer'), m.hintAfter),
    button,
  );

  return h(
    'main',
    { id: 'main', class: 'sign-in', tabindex: -1 },
    h(
      'div',
      { class: 'card' },
      h('div', { class: 'card-top' }, h('div', { class: 'brand' }, 'slipgate', h('span', {}, t().app.brandSuffix)), opts.languageSwitch),
      h('h1', { id: 'sign-in-title' }, m.title),
      message,
      form,
      h('p', { class: 'hint' }, m.storage),
    ),
  );
}
