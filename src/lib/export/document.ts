import type { Language } from '../i18n';
import { zoneOffsetMs } from '../time';

/**
 * The export kit's one document model: what a table export says, independent of the file it becomes.
 * A feature builds an `ExportDocument` (texts already translated, values already in the unit it shows)
 * and the kit writes it as PDF, XLSX or CSV with the same rules everywhere (number formats per language,
 * CSV separators, neutralised formulas, the brand on the PDF).
 */

export { EXPORT_CONTENT_TYPES, EXPORT_FORMATS, type ExportFormat } from './formats';

/** How a column's cells are written: text as it is, a calendar day, a wall-clock time or a number. */
export type ColumnType = 'text' | 'date' | 'time' | 'number';

export interface ExportColumn {
  label: string;
  type: ColumnType;
  /** Unit of a number column (km, miles), shown after the label: "Distance (km)". */
  unit?: string;
  /** Decimals of a number column (default 0). */
  decimals?: number;
  /** Relative width in the PDF and approximate characters in the spreadsheet. */
  width: number;
}

/**
 * One cell of a row, read by its column's type: text any string, date `YYYY-MM-DD`, time `HH:mm`,
 * number a number; null is an empty cell.
 */
export type ExportCell = string | number | null;
export type ExportRow = readonly ExportCell[];

/** A single value outside the table (a fact about the document, a total), typed like a cell. */
export type ExportValue =
  | { type: 'text'; value: string }
  | { type: 'date'; value: string }
  | { type: 'time'; value: string }
  | { type: 'number'; value: number; decimals: number };

export interface ExportFact {
  label: string;
  unit?: string;
  value: ExportValue;
}

/** The brand on a PDF: logo (or name), colour and contact lines. */
export interface ExportBrand {
  name: string;
  /** The logo as SVG text; null draws the brand name instead. */
  logoSvg: string | null;
  primaryColor: string;
  contactAddress: string;
  contactEmail: string;
  contactPhone: string;
}

/** The look of an export whose sub-site has no brand row. */
export const DEFAULT_EXPORT_BRAND: ExportBrand = {
  name: 'Fleet Portal',
  logoSvg: null,
  primaryColor: '#0b5cad',
  contactAddress: '',
  contactEmail: '',
  contactPhone: '',
};

export interface ExportDocument {
  title: string;
  /** What the document is about (a vehicle, a person); the file's metadata title is "title – subject". */
  subject: string;
  /** Language of the texts; also decides number formats and the CSV separator. */
  language: Language;
  /** Time zone of the dates and times in the document and of its "generated" time. */
  timeZone: string;
  generatedAt: Date;
  brand: ExportBrand;
  /** Label/value pairs above the table (registration number, period, odometer). */
  facts: ExportFact[];
  columns: ExportColumn[];
  rows: readonly ExportRow[];
  totals: ExportFact[];
  /** Sentences printed after the totals. */
  notes: string[];
  /** Parts of each PDF page's footer between the brand and the page number. */
  footer: string[];
}

export const text = (value: string | null | undefined): ExportValue => ({ type: 'text', value: value ?? '' });
export const number = (value: number, decimals: number): ExportValue => ({ type: 'number', value: Number(value.toFixed(decimals)), decimals });

/** A column's or fact's label with its unit: "Distance (km)". */
export function labelWithUnit(item: { label: string; unit?: string }): string {
  return item.unit ? `${item.label} (${item.unit})` : item.label;
}

/** A row cell as a typed value (null when empty). */
export function cellValue(column: ExportColumn, cell: ExportCell): ExportValue | null {
  if (cell === null || cell === '') return null;
  if (column.type === 'number') return { type: 'number', value: Number(cell), decimals: column.decimals ?? 0 };
  return { type: column.type, value: String(cell) };
}

export function locale(language: Language): string {
  return language === 'no' ? 'nb-NO' : language === 'en' ? 'en-GB' : 'sv-SE';
}

/** Swedish and Norwegian write a decimal comma (and their Excel separates CSV fields with `;`). */
export function usesDecimalComma(language: Language): boolean {
  return language !== 'en';
}

/** `YYYY-MM-DD HH:mm` in a time zone: the same form as the dates and times in the table. */
export function formatInstant(instant: Date, timeZone: string): string {
  const ms = instant.getTime();
  return new Date(ms + zoneOffsetMs(ms, timeZone)).toISOString().slice(0, 16).replace('T', ' ');
}

/** Formula-looking text is written as text: a spreadsheet must not run what a user typed. */
export function neutraliseFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
