// The page's language: Thai or English. A choice made with the header switch
// is remembered in localStorage (it is not a secret, unlike the token);
// without one, the browser's preferred languages decide.
import { en, type CommonMessages } from './en.js';
import { enAccount, type AccountMessages } from './en-account.js';
import { enAudit, type AuditMessages } from './en-audit.js';
import { th } from './th.js';
import { thAccount } from './th-account.js';
import { thAudit } from './th-audit.js';

export type Locale = 'en' | 'th';
export const LOCALES: { locale: Locale; label: string }[] = [
  { locale: 'en', label: 'English' },
  { locale: 'th', label: 'ไทย' },
];

const STORAGE_KEY = 'slipgate.locale';
type Messages = CommonMessages & AccountMessages & AuditMessages;
const CATALOGS: Record<Locale, Messages> = {
  en: { ...en, ...enAccount, ...enAudit },
  th: { ...th, ...thAccount, ...thAudit },
};

function stored(): Locale | null {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'en' || value === 'th' ? value : null;
  } catch {
    return null;
  }
}

/** The first of the browser's languages that the dashboard speaks; English otherwise. */
function preferredLocale(languages: readonly string[]): Locale {
  for (const language of languages) {
    const tag = language.toLowerCase();
    if (tag === 'th' || tag.startsWith('th-')) return 'th';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return 'en';
}

let current: Locale = stored() ?? preferredLocale(navigator.languages?.length ? navigator.languages : [navigator.language]);

export const locale = (): Locale => current;

/** The messages in the current language. */
export const t = (): Messages => CATALOGS[current];

export function setLocale(next: Locale): void {
  current = next;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // storage disabled: the choice lasts until the page is reloaded
  }
  applyLocale();
}

/** Marks the document's language, so screen readers and fonts follow it. */
export function applyLocale(): void {
  document.documentElement.lang = current;
}
