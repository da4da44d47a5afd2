import en from './messages/en.json';
import no from './messages/no.json';
import sv from './messages/sv.json';

export const LANGUAGES = ['sv', 'en', 'no'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'sv';

type Catalog = Record<string, string>;
const catalogs: Record<Language, Catalog> = { sv, en, no };

/** Server-side message catalogues; the web app merges the same files into its i18next resources. */
export const serverMessages = catalogs;

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** Maps an Accept-Language or a stored preference to one of ours ('nb'/'nn' are Norwegian). */
export function resolveLanguage(...candidates: Array<string | null | undefined>): Language {
  for (const candidate of candidates) {
    if (!candidate) continue;
    for (const part of candidate.split(',')) {
      const tag = part.split(';')[0]?.trim().toLowerCase().slice(0, 2);
      if (tag === 'nb' || tag === 'nn') return 'no';
      if (isLanguage(tag)) return tag;
    }
  }
  return DEFAULT_LANGUAGE;
}

/**
 * Translates a message key. Zod issues carry keys with an optional `:N` argument
 * (e.g. `validation.tooShort:8`), which fills `{{n}}`.
 */
export function translate(language: Language, key: string, params: Record<string, string | number> = {}): string {
  const [baseKey, argument] = splitKey(key);
  const template = catalogs[language][baseKey] ?? catalogs.en[baseKey] ?? baseKey;
  const values: Record<string, string | number> = argument === undefined ? params : { n: argument, ...params };
  return template.replace(/\{\{(\w+)\}\}/g, (match, name: string) =>
    values[name] === undefined ? match : String(values[name]),
  );
}

function splitKey(key: string): [string, string | undefined] {
  const colon = key.lastIndexOf(':');
  if (colon > 0 && /^[\w.-]+$/.test(key.slice(colon + 1))) return [key.slice(0, colon), key.slice(colon + 1)];
  return [key, undefined];
}

export function hasMessage(key: string): boolean {
  const [baseKey] = splitKey(key);
  return LANGUAGES.every((language) => catalogs[language][baseKey] !== undefined);
}
