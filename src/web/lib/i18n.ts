import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import serverEn from '../../lib/i18n/messages/en.json';
import serverNo from '../../lib/i18n/messages/no.json';
import serverSv from '../../lib/i18n/messages/sv.json';
import en from '../locales/en.json';
import no from '../locales/no.json';
import sv from '../locales/sv.json';

export const LANGUAGES = ['sv', 'en', 'no'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'sv';
const STORAGE_KEY = 'fleet.lang';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

function storedLanguage(): Language {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    return isLanguage(stored) ? stored : DEFAULT_LANGUAGE;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

/** The BCP 47 tag for the document and for number/date formatting ("no" is Norwegian Bokmål). */
export function localeTag(language: string): string {
  return language === 'no' ? 'nb-NO' : language === 'en' ? 'en-GB' : 'sv-SE';
}

function applyDocumentLanguage(language: string) {
  document.documentElement.lang = language === 'no' ? 'nb' : language;
}

/**
 * i18next with two namespaces: `translation` (the web app's own texts, locales/*.json) and `server`
 * (the server's message catalogues, so zod's message keys from shared schemas translate in the browser
 * exactly as on the server).
 */
export function initI18n(language: Language = storedLanguage()) {
  void i18next.use(initReactI18next).init({
    resources: {
      sv: { translation: sv, server: serverSv },
      en: { translation: en, server: serverEn },
      no: { translation: no, server: serverNo },
    },
    lng: language,
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES],
    ns: ['translation', 'server'],
    defaultNS: 'translation',
    fallbackNS: 'server',
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  applyDocumentLanguage(language);
  return i18next;
}

export function currentLanguage(): Language {
  return isLanguage(i18next.language) ? i18next.language : DEFAULT_LANGUAGE;
}

export async function changeLanguage(language: Language): Promise<void> {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // storage may be unavailable (private mode); the choice then lasts for this page only
  }
  await i18next.changeLanguage(language);
  applyDocumentLanguage(language);
}

/**
 * Translates a message key from a shared zod schema. Keys may carry one argument after a colon
 * (`validation.tooBig.string:50` fills `{{n}}`); unknown keys are shown as they are (server texts).
 */
export function translateMessage(message: string, params: Record<string, string | number> = {}): string {
  const colon = message.lastIndexOf(':');
  let key = message;
  let values: Record<string, string | number> = params;
  if (colon > 0 && /^[\w.-]+$/.test(message.slice(colon + 1)) && /^[\w.]+$/.test(message.slice(0, colon))) {
    key = message.slice(0, colon);
    values = { n: message.slice(colon + 1), ...params };
  }
  if (!/^[\w.]+$/.test(key)) return message;
  return i18next.exists(key, { ns: ['server', 'translation'] }) ? i18next.t(key, { ns: ['server', 'translation'], ...values }) : message;
}
