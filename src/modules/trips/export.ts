import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../lib/http';
import { isLanguage, type Language, translate } from '../../lib/i18n';
import { dayOf, zoneOffsetMs } from '../../lib/time';
import type { Actor } from '../accounts/users';
import { createBrandService } from '../brands/service';
import type { PdfBrand } from '../units/pdf';
import { tripLogPdf } from './export-pdf';
import { tripLogXlsx } from './export-xlsx';
import { EXPORT_CONTENT_TYPES, type ExportFormat, type ExportVariant, type TripExportQuery } from './export-model';
import type { TripList, TripLogEntry, TripType } from './model';
import type { TripService } from './service';

/**
 * Trip log exports (spec §1, domain.md §1 and §5): one unit's trips in a period of at most 12 months as
 * PDF, CSV or XLSX, in three variants:
 *
 * - se: the Swedish körjournal Skatteverket expects: registration number, odometer at the start and end of
 *   the period, and per trip date, odometer at start and stop, start and stop address, distance, business
 *   or private, and for business trips the errand and the party visited; totals of business and private km.
 * - no: the Norwegian kjørebok: date, start address, company or site visited, purpose, end address, km.
 * - uk: the HMRC business mileage log: date, start and end location, purpose and who was visited, miles;
 *   odometer readings for the period and the private miles.
 *
 * The variant follows the account's country (market) unless the caller picks one; the texts follow the
 * caller's language. Errand and visited party are written for business trips only (a private trip's purpose
 * is nobody's business). The visited party is the trip's note (who or what was visited), as the trip log
 * has no separate field for it.
 */

const M_PER_MILE = 1609.344;

export type CellValue =
  | { kind: 'text'; value: string }
  /** A calendar day YYYY-MM-DD in the period's time zone. */
  | { kind: 'date'; value: string }
  /** A wall-clock time HH:mm in the period's time zone. */
  | { kind: 'time'; value: string }
  | { kind: 'number'; value: number; decimals: number };

export type ColumnKey =
  | 'date'
  | 'startTime'
  | 'stopTime'
  | 'odometerStart'
  | 'odometerStop'
  | 'startAddress'
  | 'stopAddress'
  | 'distance'
  | 'type'
  | 'purpose'
  | 'visited'
  | 'driver';

export interface ExportColumn {
  key: ColumnKey;
  label: string;
  /** Relative width in the PDF and approximate characters in the spreadsheet. */
  width: number;
}

/** Everything a writer needs, already translated and converted into the variant's unit of distance. */
export interface TripLogDocument {
  variant: ExportVariant;
  language: Language;
  title: string;
  unitName: string;
  registrationNumber: string;
  timeZone: string;
  /** First and last day of the period (inclusive), YYYY-MM-DD. */
  fromDay: string;
  toDay: string;
  generatedAt: Date;
  distanceUnit: 'km' | 'mi';
  meta: Array<{ label: string; value: CellValue }>;
  columns: ExportColumn[];
  rows: CellValue[][];
  totals: Array<{ label: string; value: CellValue }>;
}

const COLUMN_WIDTHS: Record<ColumnKey, number> = {
  date: 11,
  startTime: 7,
  stopTime: 7,
  odometerStart: 16,
  odometerStop: 16,
  startAddress: 23,
  stopAddress: 23,
  distance: 9,
  type: 9,
  purpose: 20,
  visited: 20,
  driver: 16,
};

/** Columns of each variant, in the order the authority lists them. */
const VARIANT_COLUMNS: Record<ExportVariant, ColumnKey[]> = {
  se: ['date', 'startTime', 'odometerStart', 'stopTime', 'odometerStop', 'startAddress', 'stopAddress', 'distance', 'type', 'purpose', 'visited', 'driver'],
  no: ['date', 'startTime', 'stopTime', 'startAddress', 'visited', 'purpose', 'stopAddress', 'distance', 'type', 'odometerStart', 'odometerStop', 'driver'],
  uk: ['date', 'startTime', 'stopTime', 'startAddress', 'stopAddress', 'purpose', 'visited', 'distance', 'type', 'odometerStart', 'odometerStop', 'driver'],
};

const text = (value: string | null | undefined): CellValue => ({ kind: 'text', value: value ?? '' });
const number = (value: number, decimals: number): CellValue => ({ kind: 'number', value: Number(value.toFixed(decimals)), decimals });

/**
 * YYYY-MM-DD and HH:mm of instants in a time zone. Zone offsets change only on quarter hours, so one look-up
 * per quarter hour serves every trip in it (a year of a busy unit is thousands of trips).
 */
function wallClock(timeZone: string): (iso: string) => { day: string; time: string } {
  const offsets = new Map<number, number>();
  return (iso) => {
    const instant = Date.parse(iso);
    const quarter = Math.floor(instant / 900_000);
    let offset = offsets.get(quarter);
    if (offset === undefined) {
      offset = zoneOffsetMs(instant, timeZone);
      offsets.set(quarter, offset);
    }
    const local = new Date(instant + offset).toISOString();
    return { day: local.slice(0, 10), time: local.slice(11, 16) };
  };
}

/** Country names and codes as accounts store them (free text from registration) → market. */
export function marketOf(country: string | null | undefined, language: Language): ExportVariant {
  const value = (country ?? '').trim().toLowerCase();
  if (/^(se|swe|sweden|sverige|sverig|suède|schweden)$/.test(value) || value.startsWith('sver') || value.startsWith('swed')) return 'se';
  if (/^(no|nor|norway|norge|noreg|norwegen)$/.test(value) || value.startsWith('norw') || value.startsWith('norg')) return 'no';
  if (
    /^(uk|gb|gbr|u\.k\.|great britain|united kingdom|storbritannien|storbritannia|england|scotland|wales|northern ireland|skottland|nord-irland|nordirland)$/.test(value) ||
    value.startsWith('united kingdom')
  ) {
    return 'uk';
  }
  // No recognisable country: the language is the best hint of the market (English defaults to Sweden, the home market).
  return language === 'no' ? 'no' : 'se';
}

/** Builds the document of one variant from a trip list (already checked for access and range). */
export function buildTripLogDocument(
  list: TripList,
  unit: { name: string; registrationNumber: string },
  variant: ExportVariant,
  language: Language,
  generatedAt: Date,
): TripLogDocument {
  const t = (key: string, params?: Record<string, string | number>) => translate(language, key, params);
  const distanceUnit = variant === 'uk' ? 'mi' : 'km';
  const unitLabel = t(`tripExport.unit.${distanceUnit}`);
  const toUnit = (metres: number) => (distanceUnit === 'mi' ? metres / M_PER_MILE : metres / 1000);
  const timeZone = list.timeZone;
  const wall = wallClock(timeZone);
  const fromDay = dayOf(new Date(list.from), timeZone);
  const toDay = dayOf(new Date(Date.parse(list.to) - 1), timeZone);
  const trips = list.trips;
  const first = trips[0];
  const last = trips.at(-1);

  const columns = VARIANT_COLUMNS[variant].map((key) => ({
    key,
    label: t(`tripExport.col.${key}`, { unit: unitLabel }),
    width: COLUMN_WIDTHS[key],
  }));
  const cell = (trip: TripLogEntry, key: ColumnKey): CellValue => {
    const business = trip.type === 'business';
    switch (key) {
      case 'date':
        return { kind: 'date', value: wall(trip.startTime).day };
      case 'startTime':
        return { kind: 'time', value: wall(trip.startTime).time };
      case 'stopTime':
        return { kind: 'time', value: wall(trip.stopTime).time };
      case 'odometerStart':
        return number(Math.floor(toUnit(trip.odometerStartM)), 0);
      case 'odometerStop':
        return number(Math.floor(toUnit(trip.odometerStopM)), 0);
      case 'startAddress':
        return text(trip.startAddress ?? `${trip.startLat.toFixed(6)}, ${trip.startLon.toFixed(6)}`);
      case 'stopAddress':
        return text(trip.stopAddress ?? `${trip.stopLat.toFixed(6)}, ${trip.stopLon.toFixed(6)}`);
      case 'distance':
        return number(toUnit(trip.distanceM), 1);
      case 'type':
        return text(t(`tripExport.type.${trip.type}`));
      case 'purpose':
        return text(business ? trip.purpose : null);
      case 'visited':
        return text(business ? trip.note : null);
      case 'driver':
        return text(trip.driverName);
    }
  };
  const rows = trips.map((trip) => columns.map((column) => cell(trip, column.key)));

  const byType = (type: TripType) => trips.filter((trip) => trip.type === type).reduce((sum, trip) => sum + trip.distanceM, 0);
  const totals: TripLogDocument['totals'] = [
    { label: t('tripExport.total.business', { unit: unitLabel }), value: number(toUnit(byType('business')), 1) },
    { label: t('tripExport.total.private', { unit: unitLabel }), value: number(toUnit(byType('private')), 1) },
  ];
  if (trips.some((trip) => trip.type === 'other')) {
    totals.push({ label: t('tripExport.total.other', { unit: unitLabel }), value: number(toUnit(byType('other')), 1) });
  }
  totals.push(
    { label: t('tripExport.total.all', { unit: unitLabel }), value: number(toUnit(list.totals.all.distanceM), 1) },
    { label: t('tripExport.total.trips'), value: number(trips.length, 0) },
  );
  const meta: TripLogDocument['meta'] = [
    { label: t('tripExport.meta.registrationNumber'), value: text(unit.registrationNumber) },
    { label: t('tripExport.meta.unit'), value: text(unit.name) },
    { label: t('tripExport.meta.period'), value: text(`${fromDay} – ${toDay}`) },
    { label: t('tripExport.meta.timeZone'), value: text(timeZone) },
    { label: t('tripExport.meta.odometerStart', { unit: unitLabel }), value: first ? number(Math.floor(toUnit(first.odometerStartM)), 0) : text('') },
    { label: t('tripExport.meta.odometerEnd', { unit: unitLabel }), value: last ? number(Math.floor(toUnit(last.odometerStopM)), 0) : text('') },
  ];
  return {
    variant,
    language,
    title: t(`tripExport.title.${variant}`),
    unitName: unit.name,
    registrationNumber: unit.registrationNumber,
    timeZone,
    fromDay,
    toDay,
    generatedAt,
    distanceUnit,
    meta,
    columns,
    rows,
    totals,
  };
}

// --- CSV ------------------------------------------------------------------------------------------------

/** Formula-looking text is written as text: a spreadsheet must not run what a user typed as a purpose. */
function neutralise(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function formatCell(value: CellValue, decimalComma: boolean): string {
  if (value.kind === 'number') {
    const fixed = value.value.toFixed(value.decimals);
    return decimalComma ? fixed.replace('.', ',') : fixed;
  }
  return value.kind === 'text' ? neutralise(value.value) : value.value;
}

/**
 * CSV as Excel opens it by double-click: UTF-8 with a byte-order mark, `;` between fields and a decimal comma
 * for Swedish and Norwegian (their Excel's list separator), `,` and a decimal point for English; RFC 4180
 * quoting. Layout: the journal's details, a blank line, the trips with a header row, a blank line, the totals.
 */
export function tripLogCsv(document: TripLogDocument): Uint8Array {
  const comma = document.language !== 'en';
  const separator = comma ? ';' : ',';
  const quote = (field: string) => (/[";,\r\n]/.test(field) || /^\s|\s$/.test(field) ? `"${field.replaceAll('"', '""')}"` : field);
  const line = (fields: string[]) => fields.map(quote).join(separator);
  const lines: string[] = [line([document.title])];
  for (const { label, value } of document.meta) lines.push(line([label, formatCell(value, comma)]));
  lines.push('');
  lines.push(line(document.columns.map((column) => column.label)));
  for (const row of document.rows) lines.push(line(row.map((value) => formatCell(value, comma))));
  lines.push('');
  for (const { label, value } of document.totals) lines.push(line([label, formatCell(value, comma)]));
  return new TextEncoder().encode(`\uFEFF${lines.join('\r\n')}\r\n`);
}

// --- The service ------------------------------------------------------------------------------------------

const PUBLIC_DIR = join(import.meta.dir, '..', '..', 'web', 'public');

export interface TripExportFile {
  data: Uint8Array;
  contentType: string;
  fileName: string;
  variant: ExportVariant;
}

/** File names stay plain ASCII in the name part (Content-Disposition also carries the UTF-8 form). */
function slug(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[øØ]/g, 'o')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The exports on top of the trip service: the same access check and period rules as GET /api/trips. */
export function createTripExport(trips: TripService, options: { publicDir?: string } = {}) {
  const { units, platform } = trips;
  const brands = createBrandService(platform.database.db);
  const publicDir = options.publicDir ?? PUBLIC_DIR;

  async function accountOf(accountId: number): Promise<{ country: string; subsiteId: number }> {
    const [row] = await platform.database.query<{ country: string; subsite_id: number }>('SELECT country, subsite_id FROM accounts WHERE id = $1', [accountId]);
    return { country: row?.country ?? '', subsiteId: Number(row?.subsite_id ?? 0) };
  }

  async function brandOf(subsiteId: number): Promise<PdfBrand> {
    const brand = await brands.get(subsiteId).catch(() => null);
    let logoSvg: string | null = null;
    if (brand) {
      const path = join(publicDir, brand.logoPath.replace(/^\/+/, ''));
      if (path.startsWith(publicDir) && path.endsWith('.svg') && existsSync(path)) logoSvg = readFileSync(path, 'utf8');
    }
    return {
      name: brand?.name ?? 'Fleet Portal',
      logoSvg,
      primaryColor: brand?.colors.primary ?? '#0b5cad',
      contactAddress: brand?.contactAddress ?? '',
      contactEmail: brand?.contactEmail ?? '',
      contactPhone: brand?.contactPhone ?? '',
    };
  }

  return {
    /** Spec §1/§5/§8: the file, or 404 "no data for range" when no trip starts in the period. */
    async export(actor: Actor, query: TripExportQuery, language: Language, requestTimeZone?: string | null): Promise<TripExportFile> {
      // Access (another account's unit is 404 like a missing one) and the 12-month range, exactly as the list.
      const list = await trips.list(actor, { unitId: query.unitId, from: query.from, to: query.to }, requestTimeZone);
      if (list.trips.length === 0) throw new AppError(404, 'tripExport.noData');
      const unit = await units.get(actor, query.unitId);
      const account = await accountOf(actor.accountId);
      const variant = query.variant ?? marketOf(account.country, language);
      const document = buildTripLogDocument(list, { name: unit.Name, registrationNumber: unit.RegistrationNumber }, variant, language, platform.clock.now());
      const format: ExportFormat = query.format;
      let data: Uint8Array;
      if (format === 'csv') data = tripLogCsv(document);
      else if (format === 'xlsx') data = tripLogXlsx(document);
      else data = await tripLogPdf(document, await brandOf(account.subsiteId));
      const name = [translate(language, 'tripExport.file'), variant, slug(unit.RegistrationNumber) || String(unit.ID), document.fromDay, document.toDay].join('-');
      return { data, contentType: EXPORT_CONTENT_TYPES[format], fileName: `${name}.${format}`, variant };
    },

    /** As `export`, with the language from the query, else the X-Lang header, else the user's own; the zone from X-Timezone. */
    exportFor(actor: Actor, query: TripExportQuery, headers: Record<string, string | undefined>): Promise<TripExportFile> {
      const header = headers['x-lang'];
      const language = query.lang ?? (isLanguage(header) ? header : actor.language);
      return this.export(actor, query, language, headers['x-timezone']);
    },
  };
}

/** The file as an HTTP answer: its type, length and a download name (ASCII fallback plus the UTF-8 form). */
export function exportResponse(file: TripExportFile): Response {
  const name = file.fileName.replace(/["\\\r\n]/g, '');
  return new Response(file.data as Uint8Array<ArrayBuffer>, {
    headers: {
      'content-type': file.contentType,
      'content-length': String(file.data.byteLength),
      'content-disposition': `attachment; filename="${name.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}

export type TripExportService = ReturnType<typeof createTripExport>;
