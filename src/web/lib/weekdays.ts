import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { localeTag } from './i18n';

/** Weekday names by day id (0 is Sunday) in the user's language. */
export function useWeekdayNames(width: 'short' | 'long'): Record<number, string> {
  const { i18n } = useTranslation();
  return useMemo(() => {
    const format = new Intl.DateTimeFormat(localeTag(i18n.language), { weekday: width });
    // 4 January 2026 was a Sunday: day id 0.
    return Object.fromEntries([0, 1, 2, 3, 4, 5, 6].map((day) => [day, format.format(new Date(Date.UTC(2026, 0, 4 + day, 12)))]));
  }, [i18n.language, width]);
}
