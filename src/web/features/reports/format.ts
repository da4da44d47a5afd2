import { localeTag } from '../../lib/i18n';

/** Number formats of the report screens, in the app's language. */
export function reportFormats(language: string) {
  const locale = localeTag(language);
  const number = (digits: number) => new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  const whole = number(0);
  const one = number(1);
  const exact = new Intl.NumberFormat(locale, { maximumSignificantDigits: 8 });
  const moneyFormats = new Map<string, Intl.NumberFormat>();
  return {
    locale,
    whole: (value: number) => whole.format(value),
    one: (value: number) => one.format(value),
    /** A parameter as it is stored (rates such as 0.005 keep their digits). */
    exact: (value: number) => exact.format(value),
    km: (value: number) => `${whole.format(value)} km`,
    kmPrecise: (value: number) => `${one.format(value)} km`,
    percent: (share: number) => `${whole.format(share * 100)} %`,
    money: (value: number, currency: string) => {
      let format = moneyFormats.get(currency);
      if (!format) {
        format = new Intl.NumberFormat(locale, { style: 'currency', currency, maximumFractionDigits: 0 });
        moneyFormats.set(currency, format);
      }
      return format.format(value);
    },
    /** Seconds as hours and minutes (3 h 05 min). */
    duration: (seconds: number) => {
      const minutes = Math.round(seconds / 60);
      const hours = Math.floor(minutes / 60);
      return hours > 0 ? `${whole.format(hours)} h ${String(minutes % 60).padStart(2, '0')} min` : `${minutes} min`;
    },
    day: (date: string) => new Date(`${date}T12:00:00Z`).toLocaleDateString(locale, { timeZone: 'UTC', day: 'numeric', month: 'short' }),
    month: (month: string) => new Date(`${month}-15T12:00:00Z`).toLocaleDateString(locale, { timeZone: 'UTC', month: 'short', year: 'numeric' }),
    time: (iso: string, timeZone?: string) => new Date(iso).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', timeZone }),
  };
}
export type ReportFormats = ReturnType<typeof reportFormats>;
