import { describe, expect, test } from 'bun:test';
import { decimalSeparator, formatDecimal, parseLocaleDecimal, sanitizeDecimalInput } from './decimal';

describe('decimal input (spec §5)', () => {
  test('Swedish and Norwegian use a comma, English a dot', () => {
    expect(decimalSeparator('sv')).toBe(',');
    expect(decimalSeparator('no')).toBe(',');
    expect(decimalSeparator('en')).toBe('.');
    expect(formatDecimal(12.5, 'sv')).toBe('12,5');
    expect(formatDecimal(12.5, 'no')).toBe('12,5');
    expect(formatDecimal(12.5, 'en')).toBe('12.5');
    expect(formatDecimal(0.333333, 'sv')).toBe('0,33');
  });

  test('typing keeps digits and one separator, shown in the language convention', () => {
    expect(sanitizeDecimalInput('12.5', 'sv')).toBe('12,5');
    expect(sanitizeDecimalInput('12,5', 'en')).toBe('12.5');
    expect(sanitizeDecimalInput('1,2,3', 'sv')).toBe('1,23');
    expect(sanitizeDecimalInput('a1b2 ', 'no')).toBe('12');
  });

  test('either separator reads as a number; anything else as 0', () => {
    expect(parseLocaleDecimal('12,5')).toBe(12.5);
    expect(parseLocaleDecimal('12.5')).toBe(12.5);
    expect(parseLocaleDecimal(',5')).toBe(0.5);
    expect(parseLocaleDecimal('abc')).toBe(0);
    expect(parseLocaleDecimal('1,2,3')).toBe(0);
  });
});
