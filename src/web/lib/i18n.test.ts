import { expect, test } from 'bun:test';
import { browserLanguage, chooseLanguage } from './i18n';

test("the browser's first language the portal speaks; Norwegian in any of its tags", () => {
  expect(browserLanguage(['nb-NO', 'en'])).toBe('no');
  expect(browserLanguage(['nn'])).toBe('no');
  expect(browserLanguage(['no'])).toBe('no');
  expect(browserLanguage(['de-DE', 'en-GB', 'sv'])).toBe('en');
  expect(browserLanguage(['sv-FI'])).toBe('sv');
  expect(browserLanguage(['de-DE', 'fr'])).toBeNull();
  expect(browserLanguage([])).toBeNull();
});

test("a new visitor: the brand's default, else the browser's, else Swedish; an earlier choice comes first", () => {
  expect(chooseLanguage({ stored: null, brandDefault: 'no', browser: ['en-US'] })).toBe('no');
  expect(chooseLanguage({ stored: null, brandDefault: null, browser: ['en-US'] })).toBe('en');
  expect(chooseLanguage({ stored: null, brandDefault: undefined, browser: ['de-DE'] })).toBe('sv');
  expect(chooseLanguage({ stored: 'en', brandDefault: 'no', browser: ['sv'] })).toBe('en');
});
