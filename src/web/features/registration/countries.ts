import { localeTag } from '../../lib/i18n';

/** Countries offered by the wizard with their dial codes; Sweden, Norway and the UK first (spec §9). */
export interface Country {
  code: string;
  dial: string;
}

export const PREFERRED_COUNTRIES: Country[] = [
  { code: 'SE', dial: '46' },
  { code: 'NO', dial: '47' },
  { code: 'GB', dial: '44' },
];

const OTHER_COUNTRIES: Country[] = [
  { code: 'AT', dial: '43' },
  { code: 'BE', dial: '32' },
  { code: 'BG', dial: '359' },
  { code: 'CH', dial: '41' },
  { code: 'CY', dial: '357' },
  { code: 'CZ', dial: '420' },
  { code: 'DE', dial: '49' },
  { code: 'DK', dial: '45' },
  { code: 'EE', dial: '372' },
  { code: 'ES', dial: '34' },
  { code: 'FI', dial: '358' },
  { code: 'FR', dial: '33' },
  { code: 'GR', dial: '30' },
  { code: 'HR', dial: '385' },
  { code: 'HU', dial: '36' },
  { code: 'IE', dial: '353' },
  { code: 'IS', dial: '354' },
  { code: 'IT', dial: '39' },
  { code: 'LT', dial: '370' },
  { code: 'LU', dial: '352' },
  { code: 'LV', dial: '371' },
  { code: 'MT', dial: '356' },
  { code: 'NL', dial: '31' },
  { code: 'PL', dial: '48' },
  { code: 'PT', dial: '351' },
  { code: 'RO', dial: '40' },
  { code: 'SI', dial: '386' },
  { code: 'SK', dial: '421' },
  { code: 'US', dial: '1' },
];

export const DEFAULT_COUNTRY = 'SE';

export function countryByCode(code: string): Country {
  return [...PREFERRED_COUNTRIES, ...OTHER_COUNTRIES].find((country) => country.code === code) ?? (PREFERRED_COUNTRIES[0] as Country);
}

export function countryName(code: string, language: string): string {
  try {
    return new Intl.DisplayNames([localeTag(language)], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** Preferred countries first, then the rest sorted by their name in the UI language. */
export function countryOptions(language: string): Array<Country & { name: string }> {
  const named = (list: Country[]) => list.map((country) => ({ ...country, name: countryName(country.code, language) }));
  const collator = new Intl.Collator(localeTag(language));
  return [...named(PREFERRED_COUNTRIES), ...named(OTHER_COUNTRIES).sort((a, b) => collator.compare(a.name, b.name))];
}
