// Sign-in: the token is checked with `me` before it is kept. The form never
// submits natively (and the CSP forbids it), so the token cannot end up in
// the address bar or a server log.
import { h } from '../dom.js';

export function signInPage(opts: { message?: string; onToken: (token: string) => Promise<string | null> }): HTMLElement {
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
  const button = h('button', { type: 'submit' }, 'Sign in');

  const form = h(
    'form',
    {
      method: 'post',
      'aria-labelledby': 'sign-in-title',
      onsubmit: async (event: SubmitEvent) => {
        event.preventDefault();
        const token = input.value.trim();
        if (!token) {
          message.replaceChildren(h('p', { class: 'notice error' }, 'Enter an admin token first.'));
          input.focus();
          return;
        }
        button.disabled = true;
        button.textContent = 'Checking…';
        const problem = await opts.onToken(token);
        if (problem) {
          button.disabled = false;
          button.textContent = 'Sign in';
          message.replaceChildren(h('p', { class: 'notice error' }, problem));
          input.select();
          input.focus();
        }
      },
    },
    h('label', { for: 'token' }, 'Admin token'),
    input,
    h(
      'p',
      { id: 'token-hint', class: 'hint' },
      'Starts with sgadm_. Create one with ',
      h('code', {}, 'npx slipgate admin-tokens create --name you --role viewer'),
      '.',
    ),
    button,
  );

  return h(
    'main',
    { id: 'main', class: 'sign-in', tabindex: -1 },
    h('div', { class: 'card' },
      h('div', { class: 'brand' }, 'slipgate', h('span', {}, ' dashboard')),
      h('h1', { id: 'sign-in-title' }, 'Sign in'),
      message,
      form,
      h(
        'p',
        { class: 'hint' },
        'The token is kept only in this browser tab (session storage) and sent in the Authorization header. It is forgotten when you close the tab or sign out.',
      ),
    ),
  );
}
