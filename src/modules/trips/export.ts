import {
  type ExportBrand,
  type ExportColumn,
  type ExportDocument,
  type ExportFact,
  type ExportFormat,
  type ExportRow,
  exportResponse,
  number,
  text,
} from '../../lib/export';
import { AppError } from '../../lib/http';
import { isLanguage, type Language, translate } from '../../lib/i18n';
import { dayOf, zoneOffsetMs } from '../../lib/time';
import type { Actor } from '../auth/model';
import { BRAND_PUBLIC_DIR, createBrandService } from '../brands/service';
import type { ExportVariant, TripExportQuery } from './model';
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
 * has no separate field for it. This module builds the export kit's document (src/lib/export); the kit
 * writes and streams the file.
 */

const M_PER_MILE = 1609.344;

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

/** Each column's type, decimals and relative width (PDF) or approximate characters (spreadsheet). */
const COLUMNS: Record<ColumnKey, Omit<ExportColumn, 'label' | 'unit'> & { distance?: true }> = {
  date: { type: 'date', width: 11 },
  startTime: { type: 'time', width: 7 },
  stopTime: { type: 'time', width: 7 },
  odometerStart: { type: 'number', decimals: 0, width: 16, distance: true },
  odometerStop: { type: 'number', decimals: 0, width: 16, distance: true },
  startAddress: { type: 'text', width: 23 },
  stopAddress: { type: 'text', width: 23 },
  distance: { type: 'number', decimals: 1, width: 9, distance: true },
  type: { type: 'text', width: 9 },
  purpose: { type: 'text', width: 20 },
  visited: { type: 'text', width: 20 },
  driver: { type: 'text', width: 16 },
};

/** Columns of each variant, in the order the authority lists them. */
const VARIANT_COLUMNS: Record<ExportVariant, ColumnKey[]> = {
  se: ['date', 'startTime', 'odometerStart', 'stopTime', 'odometerStop', 'startAddress', 'stopAddress', 'distance', 'type', 'purpose', 'visited', 'driver'],
  no: ['date', 'startTime', 'stopTime', 'startAddress', 'visited', 'purpose', 'stopAddress', 'distance', 'type', 'odometerStart', 'odometerStop', 'driver'],
  uk: ['date', 'startTime', 'stopTime', 'startAddress', 'stopAddress', 'purpose', 'visited', 'distance', 'type', 'odometerStart', 'odometerStop', 'driver'],
};

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

/** The first and last day of the trip list's period (inclusive), YYYY-MM-DD. */
function periodOf(list: TripList): { fromDay: string; toDay: string } {
  return { fromDay: dayOf(new Date(list.from), list.timeZone), toDay: dayOf(new Date(Date.parse(list.to) - 1), list.timeZone) };
}

/** Builds the export document of one variant from a trip list (already checked for access and range). */
export function buildTripLogDocument(
  list: TripList,
  unit: { name: string; registrationNumber: string },
  variant: ExportVariant,
  language: Language,
  generatedAt: Date,
  brand: ExportBrand,
): ExportDocument {
  const t = (key: string, params?: Record<string, string | number>) => translate(language, key, params);
  const distanceUnit = t(`tripExport.unit.${variant === 'uk' ? 'mi' : 'km'}`);
  const toUnit = (metres: number) => (variant === 'uk' ? metres / M_PER_MILE : metres / 1000);
  const timeZone = list.timeZone;
  const wall = wallClock(timeZone);
  const { fromDay, toDay } = periodOf(list);
  const trips = list.trips;
  const first = trips[0];
  const last = trips.at(-1);

  const keys = VARIANT_COLUMNS[variant];
  const columns: ExportColumn[] = keys.map((key) => {
    const { distance, ...column } = COLUMNS[key];
    return { ...column, label: t(`tripExport.col.${key}`), unit: distance ? distanceUnit : undefined };
  });
  const typeNames = { business: t('tripExport.type.business'), private: t('tripExport.type.private'), other: t('tripExport.type.other') };
  const cell = (trip: TripLogEntry, key: ColumnKey): ExportRow[number] => {
    const business = trip.type === 'business';
    switch (key) {
      case 'date':
        return wall(trip.startTime).day;
      case 'startTime':
        return wall(trip.startTime).time;
      case 'stopTime':
        return wall(trip.stopTime).time;
      case 'odometerStart':
        return Math.floor(toUnit(trip.odometerStartM));
      case 'odometerStop':
        return Math.floor(toUnit(trip.odometerStopM));
      case 'startAddress':
        return trip.startAddress ?? `${trip.startLat.toFixed(6)}, ${trip.startLon.toFixed(6)}`;
      case 'stopAddress':
        return trip.stopAddress ?? `${trip.stopLat.toFixed(6)}, ${trip.stopLon.toFixed(6)}`;
      case 'distance':
        return Number(toUnit(trip.distanceM).toFixed(1));
      case 'type':
        return typeNames[trip.type];
      case 'purpose':
        return business ? trip.purpose : null;
      case 'visited':
        return business ? trip.note : null;
      case 'driver':
        // A booked driver is named as such: the booking says who had the car, not who drove it.
        return trip.driverName && trip.driverSource === 'booking' ? `${trip.driverName} (${t('tripExport.bookedDriver')})` : trip.driverName;
    }
  };
  const rows = trips.map((trip) => keys.map((key) => cell(trip, key)));

  const byType = (type: TripType) => trips.filter((trip) => trip.type === type).reduce((sum, trip) => sum + trip.distanceM, 0);
  const distanceTotal = (key: string, metres: number): ExportFact => ({ label: t(`tripExport.total.${key}`), unit: distanceUnit, value: number(toUnit(metres), 1) });
  const totals: ExportFact[] = [distanceTotal('business', byType('business')), distanceTotal('private', byType('private'))];
  if (trips.some((trip) => trip.type === 'other')) totals.push(distanceTotal('other', byType('other')));
  totals.push(distanceTotal('all', list.totals.all.distanceM), { label: t('tripExport.total.trips'), value: number(trips.length, 0) });
  const facts: ExportFact[] = [
    { label: t('tripExport.meta.registrationNumber'), value: text(unit.registrationNumber) },
    { label: t('tripExport.meta.unit'), value: text(unit.name) },
    { label: t('tripExport.meta.period'), value: text(`${fromDay} – ${toDay}`) },
    { label: t('tripExport.meta.timeZone'), value: text(timeZone) },
    { label: t('tripExport.meta.odometerStart'), unit: distanceUnit, value: first ? number(Math.floor(toUnit(first.odometerStartM)), 0) : text('') },
    { label: t('tripExport.meta.odometerEnd'), unit: distanceUnit, value: last ? number(Math.floor(toUnit(last.odometerStopM)), 0) : text('') },
  ];
  const title = t(`tripExport.title.${variant}`);
  return {
    title,
    subject: unit.name,
    language,
    timeZone,
    generatedAt,
    brand,
    facts,
    columns,
    rows,
    totals,
    notes: [],
    footer: [`${title} – ${unit.registrationNumber || unit.name}`, `${fromDay} – ${toDay}`],
  };
}

// --- The service ------------------------------------------------------------------------------------------


export interface TripExportFile {
  document: ExportDocument;
  format: ExportFormat;
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
  const publicDir = options.publicDir ?? BRAND_PUBLIC_DIR;

  async function accountOf(accountId: number): Promise<{ country: string; subsiteId: number }> {
    const [row] = await platform.database.query<{ country: string; subsite_id: number }>('SELECT country, subsite_id FROM account_directory WHERE id = $1', [accountId]);
    return { country: row?.country ?? '', subsiteId: Number(row?.subsite_id ?? 0) };
  }

  return {
    /** Spec §1/§5/§8: the file's document, or 404 "no data for range" when no trip starts in the period. */
    async export(actor: Actor, query: TripExportQuery, language: Language, requestTimeZone?: string | null): Promise<TripExportFile> {
      // Access (another account's unit is 404 like a missing one) and the 12-month range, exactly as the list.
      const list = await trips.list(actor, { unitId: query.unitId, from: query.from, to: query.to }, requestTimeZone);
      if (list.trips.length === 0) throw new AppError(404, 'tripExport.noData');
      const unit = await units.get(actor, query.unitId);
      const account = await accountOf(actor.accountId);
      const variant = query.variant ?? marketOf(account.country, language);
      const unitNames = { name: unit.Name, registrationNumber: unit.RegistrationNumber };
      const document = buildTripLogDocument(list, unitNames, variant, language, platform.clock.now(), await brands.exportBrand(account.subsiteId, publicDir));
      const { fromDay, toDay } = periodOf(list);
      const name = [translate(language, 'tripExport.file'), variant, slug(unit.RegistrationNumber) || String(unit.ID), fromDay, toDay].join('-');
      return { document, format: query.format, fileName: `${name}.${query.format}`, variant };
    },

    /** As `export`, with the language from the query, else the X-Lang header, else the user's own; the zone from X-Timezone. */
    exportFor(actor: Actor, query: TripExportQuery, headers: Record<string, string | undefined>): Promise<TripExportFile> {
      const header = headers['x-lang'];
      const language = query.lang ?? (isLanguage(header) ? header : actor.language);
      return this.export(actor, query, language, headers['x-timezone']);
    },
  };
}

/** The file as an HTTP download, streamed while it is written (the export kit's `exportResponse`). */
export function tripExportResponse(file: TripExportFile): Promise<Response> {
  return exportResponse(file.document, file.format, file.fileName);
}

export type TripExportService = ReturnType<typeof createTripExport>;
