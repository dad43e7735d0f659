// The language switch in the header (and on the sign-in card): two toggle
// buttons, each labelled in its own language so anyone can find theirs.
import { h } from './dom.js';
import { LOCALES, locale, setLocale, type Locale } from './i18n/index.js';

export function languageSwitch(onChange: (next: Locale) => void): HTMLElement {
  return h(
    'div',
    // Named in both languages: someone who cannot read the current one must still find it.
    { class: 'lang-switch', role: 'group', 'aria-label': 'Language · ภาษา' },
    LOCALES.map(({ locale: l, label }) =>
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          lang: l,
          'data-locale': l,
          'aria-pressed': l === locale() ? 'true' : 'false',
          onclick: () => {
            if (l === locale()) return;
            setLocale(l);
            onChange(l);
          },
        },
        label,
      ),
    ),
  );
}
