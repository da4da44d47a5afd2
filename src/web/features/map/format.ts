import { localeTag } from '../../lib/i18n';

/** Number, time and distance texts of the map in the UI language (comma decimals in sv and no). */
export function formatters(language: string) {
  const locale = localeTag(language);
  const integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const oneDecimal = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const twoDecimals = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' });
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short' });
  const time = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' });
  const timeSeconds = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const day = new Intl.DateTimeFormat(locale, { weekday: 'short', day: 'numeric', month: 'short' });
  return {
    speed: (kmh: number | null) => (kmh === null ? '–' : `${integer.format(kmh)} km/h`),
    odometer: (metres: number | null) => (metres === null ? '–' : `${integer.format(Math.floor(metres / 1000))} km`),
    voltage: (volts: number | null) => (volts === null ? '–' : `${twoDecimals.format(volts)} V`),
    temperature: (celsius: number) => `${oneDecimal.format(celsius)} °C`,
    percent: (value: number) => `${integer.format(value)} %`,
    distance: (metres: number) => (metres < 1000 ? `${integer.format(metres)} m` : `${oneDecimal.format(metres / 1000)} km`),
    /** "3 min ago", "yesterday"…; the exact time for anything older than a week. */
    lastSeen(iso: string | null, now: number): string {
      if (!iso) return '–';
      const then = Date.parse(iso);
      const seconds = Math.round((then - now) / 1000);
      const abs = Math.abs(seconds);
      if (abs < 45) return relative.format(0, 'second');
      if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
      if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
      if (abs < 7 * 86_400) return relative.format(Math.round(seconds / 86_400), 'day');
      return dateTime.format(then);
    },
    dateTime: (ms: number) => dateTime.format(ms),
    time: (ms: number) => time.format(ms),
    timeSeconds: (ms: number) => timeSeconds.format(ms),
    day: (date: Date) => day.format(date),
  };
}
export type Formatters = ReturnType<typeof formatters>;

/** YYYY-MM-DD of a local date. */
export function isoDay(date: Date): string {
  const y = date.getFullYear();
  const m = String(date.getMonth() + 1).padStart(2, '0');
  const d = String(date.getDate()).padStart(2, '0');
  return `${y}-${m}-${d}`;
}

/** Spec §5/§9: today and the six days before, newest first (local calendar days). */
export function historyDays(now: Date, count: number): Date[] {
  const days: Date[] = [];
  for (let i = 0; i < count; i++) days.push(new Date(now.getFullYear(), now.getMonth(), now.getDate() - i, 12));
  return days;
}
