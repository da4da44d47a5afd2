import { z } from 'zod';

/**
 * Zod's own messages become our message keys, so every validation text is translated
 * by the server and by the web app from the same catalogues.
 */
z.config({
  // In the browser zod must not compile validators with `new Function`: the Content-Security-Policy forbids eval,
  // and even zod's caught probe for it is reported as a violation.
  jitless: typeof document !== 'undefined',
  customError: (issue) => {
    switch (issue.code) {
      case 'invalid_type':
        return issue.input === undefined || issue.input === null ? 'validation.required' : 'validation.invalidType';
      case 'too_small':
        return issue.origin === 'string' && issue.minimum === 1
          ? 'validation.required'
          : `validation.tooSmall.${issue.origin === 'string' ? 'string' : 'number'}:${String(issue.minimum)}`;
      case 'too_big':
        return `validation.tooBig.${issue.origin === 'string' ? 'string' : 'number'}:${String(issue.maximum)}`;
      case 'invalid_format':
        return issue.format === 'email' ? 'validation.email' : 'validation.invalidFormat';
      case 'invalid_value':
        return 'validation.invalidValue';
      default:
        return 'validation.invalid';
    }
  },
});

/**
 * A query-string value as one text. The HTTP layer hands over a value with commas already split into an array
 * ("Storgatan 1, Malmö" as two parts) and a lone number as a number: join it back, so any text is taken as typed.
 */
export function joinQueryValue(value: unknown): unknown {
  return Array.isArray(value) ? value.join(',') : typeof value === 'number' ? String(value) : value;
}

/** An optional free-text query parameter (a search) of at most `max` characters; commas are part of the text. */
export function queryText(max: number) {
  return z.preprocess(joinQueryValue, z.string().trim().max(max)).optional();
}

/** Every schema imports `z` from here, so the key-producing error map is always installed (server and web). */
export { z };

/** Decimal input (spec §5): digits with one dot or comma; anything else reads as 0. */
export function parseDecimal(input: string): number {
  const normalized = input.trim().replace(',', '.');
  return /^\d+(\.\d+)?$|^\d+\.$|^\.\d+$/.test(normalized) ? Number(normalized) : 0;
}
