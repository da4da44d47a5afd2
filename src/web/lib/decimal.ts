import { parseDecimal } from '../../lib/validation';

/**
 * Decimal input (spec §5): digits with one separator, dot or comma, anything else reads as 0.
 * Swedish and Norwegian show and accept a comma; English shows a dot (and accepts both).
 */
export function decimalSeparator(language: string): ',' | '.' {
  return language === 'sv' || language === 'no' ? ',' : '.';
}

/** Keeps what a decimal field may hold while typing: digits and at most one separator. */
export function sanitizeDecimalInput(input: string, language: string): string {
  const separator = decimalSeparator(language);
  let seen = false;
  let result = '';
  for (const char of input) {
    if (char >= '0' && char <= '9') result += char;
    else if ((char === ',' || char === '.') && !seen) {
      seen = true;
      result += separator;
    }
  }
  return result;
}

export function parseLocaleDecimal(input: string): number {
  return parseDecimal(input);
}

export function formatDecimal(value: number, language: string, maximumFractionDigits = 2): string {
  if (!Number.isFinite(value)) return '';
  const fixed = Number(value.toFixed(maximumFractionDigits)).toString();
  return decimalSeparator(language) === ',' ? fixed.replace('.', ',') : fixed;
}
