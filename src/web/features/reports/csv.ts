import type { CongestionReport } from '../../../modules/reports/model';

/** Texts of the CSV file, in the user's language. */
export interface CsvTexts {
  headers: string[];
  city: (city: string) => string;
  tripType: (type: string | null) => string;
  reason: (reason: string | null) => string;
  dayTotal: string;
  periodTotal: string;
}

/** One field, quoted when it holds the separator, a quote or a line break. */
function field(value: string | number): string {
  const text = String(value);
  return /[;"\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The report's table as CSV: one row per passage, a total row per day and one for the period. Semicolons
 * and a byte-order mark, so that spreadsheet programs with Swedish and Norwegian settings open it as is.
 */
export function congestionCsv(report: CongestionReport, texts: CsvTexts): string {
  const rows: Array<Array<string | number>> = [texts.headers];
  for (const day of report.days) {
    for (const p of day.passages) {
      rows.push([day.date, p.localTime, texts.city(p.city), p.station, texts.tripType(p.tripType), p.tariff, p.amount, texts.reason(p.reason)]);
    }
    rows.push([day.date, '', '', '', '', '', day.total, texts.dayTotal]);
  }
  rows.push([`${report.from} – ${report.to}`, '', '', '', '', '', report.total, texts.periodTotal]);
  return `\uFEFF${rows.map((row) => row.map(field).join(';')).join('\r\n')}\r\n`;
}
