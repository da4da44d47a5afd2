import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['sv', 'en', 'no'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'sv';
const STORAGE_KEY = 'fleet.lang';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The language the visitor chose before (the language picker keeps it), if any. */
export function storedLanguage(): Language | null {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    return isLanguage(stored) ? stored : null;
  } catch {
    return null;
  }
}

/** The first of the browser's preferred languages the portal speaks: sv, Norwegian (nb, nn, no) or en. */
export function browserLanguage(preferred: readonly string[]): Language | null {
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split(/[-_]/)[0];
    if (primary === 'sv') return 'sv';
    if (primary === 'nb' || primary === 'nn' || primary === 'no') return 'no';
    if (primary === 'en') return 'en';
  }
  return null;
}

/**
 * The language a visitor starts in: their own earlier choice, else the brand's default language (brand data), else
 * the browser's first language the portal speaks, else Swedish.
 */
export function chooseLanguage(input: { stored: Language | null; brandDefault: Language | null | undefined; browser: readonly string[] }): Language {
  return input.stored ?? input.brandDefault ?? browserLanguage(input.browser) ?? DEFAULT_LANGUAGE;
}

/**
 * Each language's texts come in two parts, each a chunk loaded when first needed: what the signed-out pages use
 * (`public-texts:<language>`, made by the web build, see locales/public-groups.ts), and the whole catalogues of the web
 * app (`translation`, locales/*.json) and the server's messages (`server`) once any other screen is shown, so that
 * the login page does not load the texts of the whole app.
 */
const PUBLIC_TEXTS: Record<Language, () => Promise<{ default: { translation: object; server: object } }>> = {
  sv: () => import('public-texts:sv'),
  en: () => import('public-texts:en'),
  no: () => import('public-texts:no'),
};
const ALL_TEXTS: Record<Language, () => Promise<[{ default: object }, { default: object }]>> = {
  sv: () => Promise.all([import('../locales/sv.json'), import('../../lib/i18n/messages/sv.json')]),
  en: () => Promise.all([import('../locales/en.json'), import('../../lib/i18n/messages/en.json')]),
  no: () => Promise.all([import('../locales/no.json'), import('../../lib/i18n/messages/no.json')]),
};

/** Set once a screen beyond the signed-out ones needs the whole catalogues: a language chosen later loads them too. */
let allTextsWanted = false;
/** The languages whose whole catalogues are in. */
const wholeCatalogues = new Set<Language>();

async function loadAllTexts(language: Language): Promise<void> {
  if (wholeCatalogues.has(language)) return;
  const [translation, server] = await ALL_TEXTS[language]();
  i18next.addResourceBundle(language, 'translation', translation.default, true, true);
  i18next.addResourceBundle(language, 'server', server.default, true, true);
  wholeCatalogues.add(language);
}

async function loadLanguage(language: Language): Promise<void> {
  if (!i18next.hasResourceBundle(language, 'translation')) {
    const texts = (await PUBLIC_TEXTS[language]()).default;
    i18next.addResourceBundle(language, 'translation', texts.translation, true, false);
    i18next.addResourceBundle(language, 'server', texts.server, true, false);
  }
  if (allTextsWanted) await loadAllTexts(language);
}

/** The whole catalogue of the current language, before a screen other than the signed-out ones is shown. */
export async function loadScreenTexts(): Promise<void> {
  allTextsWanted = true;
  await loadAllTexts(currentLanguage());
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
 * exactly as on the server). Only the starting language's texts are loaded; another is loaded when chosen.
 */
export async function initI18n(language: Language = storedLanguage() ?? DEFAULT_LANGUAGE) {
  await i18next.use(initReactI18next).init({
    resources: {},
    partialBundledLanguages: true,
    lng: language,
    fallbackLng: false,
    supportedLngs: [...LANGUAGES],
    ns: ['translation', 'server'],
    defaultNS: 'translation',
    fallbackNS: 'server',
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  await loadLanguage(language);
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
  await loadLanguage(language);
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
