import type { Clock } from '../../lib/clock';
import type { DatabaseHandle } from '../../lib/db/client';
import {
  DEFAULT_EXPORT_BRAND,
  type ExportBrand,
  type ExportCell,
  type ExportColumn,
  type ExportDocument,
  type ExportFact,
  type ExportRow,
  formatInstant,
  number,
  text,
} from '../../lib/export';
import { forbidden } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import type { FuelType } from '../accounts/model';
import type { Actor } from '../auth/model';
import { BRAND_PUBLIC_DIR, createBrandService } from '../brands/service';
import type { UnitService } from '../units/service';
import { co2Report } from './co2';
import { ecoReport } from './eco';
import { environmentReport } from './environment';
import { createFleetSource, type FleetSource, reportTimeZone, resolvePeriod } from './fleet-source';
import { fuelReport, type Market } from './fuel';
import type { Co2Report, EcoReport, EnvironmentReport, FleetReport, FuelReport, ReportFormat, ReportKind, ReportQuery, ReportScope, SummaryReport } from './model';
import { summaryReport } from './summary';

/**
 * The fleet reports (summary, eco driving, fuel, CO2, environmental) of the caller's account, for units, a department,
 * a driver or the whole fleet, and their files through the export kit. Administrators and ordinary users read them
 * (an ordinary user over the units they see); spec §6: a locked benefit/private car without access is left out of
 * every report but the summary, and naming it is 403.
 */
export interface FleetReportDeps {
  database: DatabaseHandle;
  clock: Clock;
  units: Pick<UnitService, 'list'>;
  /** The account's market fuel prices (accounts' settings service). */
  fuelPrices(accountId: number): Promise<Array<{ market: Market; fuelType: FuelType; price: number }>>;
  /** Where brand logos are read from (tests point it elsewhere). */
  publicDir?: string;
}

export interface ReportFile {
  document: ExportDocument;
  format: ReportFormat;
  fileName: string;
}

export function createFleetReports(deps: FleetReportDeps) {
  const { database, clock } = deps;
  const source: FleetSource = createFleetSource(database, deps.units);
  const brands = createBrandService(database.db);

  function requireReader(actor: Actor) {
    if (actor.role !== 'admin' && actor.role !== 'user') throw forbidden();
  }

  async function accountOf(accountId: number): Promise<{ market: Market; subsiteId: number }> {
    const [row] = await database.query<{ country: string | null; subsite_id: number | null }>('SELECT country, subsite_id FROM account_directory WHERE id = $1', [
      accountId,
    ]);
    const country = (row?.country ?? '').trim();
    return { market: /^(no|nor|norge|norway|noreg)$/i.test(country) ? 'NO' : 'SE', subsiteId: Number(row?.subsite_id ?? 0) };
  }

  /** Any report by kind, for a scope and a period (`timeZone` of the days; default Europe/Stockholm). */
  async function run(actor: Actor, kind: ReportKind, query: Omit<ReportQuery, 'format'>, language: Language, requestTimeZone?: string | null): Promise<FleetReport> {
    requireReader(actor);
    const timeZone = reportTimeZone(requestTimeZone);
    const now = clock.now();
    const period = resolvePeriod(query, now, timeZone, kind);
    const scope = await source.scope(actor, query, kind);
    const noDriver = translate(language, 'reports.noDriver');
    const noDepartment = translate(language, 'reports.noDepartment');
    switch (kind) {
      case 'summary':
        return summaryReport(source, actor.accountId, scope, period, now, { noDriver, noDepartment });
      case 'eco':
        return ecoReport(source, actor.accountId, scope, period, now, { noDriver });
      case 'fuel': {
        const { market } = await accountOf(actor.accountId);
        return fuelReport(source, actor.accountId, scope, period, now, { market, prices: await deps.fuelPrices(actor.accountId) }, { noDriver });
      }
      case 'co2':
        return co2Report(source, actor.accountId, scope, period, now, (await accountOf(actor.accountId)).market, { noDriver, noDepartment });
      case 'environment':
        return environmentReport(source, actor.accountId, scope, period, now, (await accountOf(actor.accountId)).market);
    }
  }

  async function file(actor: Actor, kind: ReportKind, query: Omit<ReportQuery, 'format'>, format: ReportFormat, language: Language, requestTimeZone?: string | null): Promise<ReportFile> {
    const report = await run(actor, kind, query, language, requestTimeZone);
    const account = await accountOf(actor.accountId);
    let brand: ExportBrand = DEFAULT_EXPORT_BRAND;
    try {
      brand = await brands.exportBrand(account.subsiteId, deps.publicDir ?? BRAND_PUBLIC_DIR);
    } catch {
      brand = DEFAULT_EXPORT_BRAND;
    }
    const document = reportDocument(report, language, brand);
    const name = [translate(language, `reports.file.${kind}`), report.from, report.to].join('-');
    return { document, format, fileName: `${name}.${format}` };
  }

  return {
    fleetReport: run,
    fleetReportFile: file,
    async summary(actor: Actor, query: Omit<ReportQuery, 'format'>, language: Language, timeZone?: string | null) {
      return (await run(actor, 'summary', query, language, timeZone)) as SummaryReport;
    },
    async eco(actor: Actor, query: Omit<ReportQuery, 'format'>, language: Language, timeZone?: string | null) {
      return (await run(actor, 'eco', query, language, timeZone)) as EcoReport;
    },
    async fuel(actor: Actor, query: Omit<ReportQuery, 'format'>, language: Language, timeZone?: string | null) {
      return (await run(actor, 'fuel', query, language, timeZone)) as FuelReport;
    },
    async co2(actor: Actor, query: Omit<ReportQuery, 'format'>, language: Language, timeZone?: string | null) {
      return (await run(actor, 'co2', query, language, timeZone)) as Co2Report;
    },
    async environment(actor: Actor, query: Omit<ReportQuery, 'format'>, language: Language, timeZone?: string | null) {
      return (await run(actor, 'environment', query, language, timeZone)) as EnvironmentReport;
    },
    /** The scope of a schedule checked as the report would (its units the caller's, a locked car refused). */
    async checkScope(actor: Actor, kind: ReportKind, scope: ReportScope): Promise<void> {
      requireReader(actor);
      await source.scope(actor, scope, kind);
    },
  };
}

export type FleetReports = ReturnType<typeof createFleetReports>;

const hours = (seconds: number) => seconds / 3600;

/** A column of a report's table together with the cell each row gives it: one list says both, so they stay in step. */
interface ReportField<Row> {
  column: ExportColumn;
  cell: (row: Row) => ExportCell;
}

const KM = { unit: 'km', decimals: 1 } as const;

/** A report as the export kit's document: its rows, the figures above them and its totals. */
export function reportDocument(report: FleetReport, language: Language, brand: ExportBrand): ExportDocument {
  const t = (key: string, params?: Record<string, string | number>) => translate(language, key, params);
  const field = <Row>(key: string, type: ExportColumn['type'], width: number, cell: (row: Row) => ExportCell, extra: Partial<ExportColumn> = {}): ReportField<Row> => ({
    column: { label: t(`reports.col.${key}`), type, width, ...extra },
    cell,
  });
  const total = (key: string, value: number, decimals: number, unit?: string): ExportFact => ({ label: t(`reports.col.${key}`), ...(unit === undefined ? {} : { unit }), value: number(value, decimals) });
  const fuelName = (fuel: FuelType | null) => (fuel ? t(`reports.fuel.${fuel}`) : '');
  const co2FactorNote = (factor: Co2Report['factors'][number]) =>
    t('reports.note.co2Factor', { fuel: fuelName(factor.fuelType), country: factor.country, year: factor.year, value: factor.kgPerUnit, unit: factor.energyUnit, basis: t(`reports.co2Basis.${factor.basis}`), source: factor.source });
  // The columns most reports open with.
  const name = field<{ name: string }>('name', 'text', 22, (row) => row.name);
  const department = field<{ department: { name: string } | null }>('department', 'text', 14, (row) => row.department?.name ?? '');
  const trips = field<{ trips: number }>('trips', 'number', 7, (row) => row.trips);
  const distance = field<{ distanceKm: number }>('distance', 'number', 10, (row) => row.distanceKm, KM);
  const fuelType = field<{ fuelType: FuelType | null }>('fuelType', 'text', 10, (row) => fuelName(row.fuelType));

  const facts: ExportFact[] = [
    { label: t('reports.fact.period'), value: text(`${report.from} – ${report.to}`) },
    { label: t('reports.fact.groupBy'), value: text(t(`reports.groupBy.${report.groupBy}`)) },
    { label: t('reports.fact.vehicles'), value: number(report.units.length, 0) },
  ];
  const notes: string[] = [];
  if (report.excludedLockedUnits > 0) notes.push(t('reports.note.excludedLocked', { count: report.excludedLockedUnits }));
  let columns: ExportColumn[] = [];
  let rows: ExportRow[] = [];
  let totals: ExportFact[] = [];
  const table = <Row>(source: readonly Row[], fields: ReportField<Row>[]) => {
    columns = fields.map((each) => each.column);
    rows = source.map((row) => fields.map((each) => each.cell(row)));
  };
  switch (report.kind) {
    case 'summary':
      table(report.rows, [
        name,
        department,
        trips,
        distance,
        field('business', 'number', 10, (row) => row.distanceByType.business, KM),
        field('private', 'number', 10, (row) => row.distanceByType.private, KM),
        field('drivingTime', 'number', 9, (row) => hours(row.drivingS), { unit: 'h', decimals: 1 }),
        field('idleTime', 'number', 9, (row) => hours(row.idleS), { unit: 'h', decimals: 1 }),
        field('stops', 'number', 7, (row) => row.stops),
        field('avgSpeed', 'number', 8, (row) => row.avgSpeedKmh, { unit: 'km/h', decimals: 1 }),
        field('maxSpeed', 'number', 8, (row) => row.maxSpeedKmh, { unit: 'km/h', decimals: 1 }),
      ]);
      totals = [
        total('trips', report.fleet.trips, 0),
        total('distance', report.fleet.distanceKm, 1, 'km'),
        total('business', report.fleet.distanceByType.business, 1, 'km'),
        total('private', report.fleet.distanceByType.private, 1, 'km'),
        total('drivingTime', hours(report.fleet.drivingS), 1, 'h'),
        total('idleTime', hours(report.fleet.idleS), 1, 'h'),
      ];
      for (const each of report.departments) totals.push({ label: `${t('reports.col.department')}: ${each.name}`, unit: 'km', value: number(each.distanceKm, 1) });
      break;
    case 'eco': {
      const per100Km = { unit: '/100 km', decimals: 2 };
      table(report.rows, [
        field('rank', 'number', 6, (row) => row.rank),
        name,
        field('score', 'number', 8, (row) => row.score, { decimals: 1 }),
        trips,
        distance,
        field('acceleration', 'number', 10, (row) => row.accelerationPer100Km, per100Km),
        field('braking', 'number', 10, (row) => row.brakingPer100Km, per100Km),
        field('cornering', 'number', 10, (row) => row.corneringPer100Km, per100Km),
        field('overspeed', 'number', 9, (row) => row.overspeedShare * 100, { unit: '%', decimals: 1 }),
        field('idle', 'number', 9, (row) => row.idleShare * 100, { unit: '%', decimals: 1 }),
      ]);
      totals = [total('score', report.fleet.score, 1), total('trips', report.fleet.trips, 0), total('distance', report.fleet.distanceKm, 1, 'km')];
      notes.push(t('reports.note.ecoScore'));
      break;
    }
    case 'fuel': {
      const money = { unit: report.currency, decimals: 2 };
      table(report.rows, [
        name,
        fuelType,
        field('source', 'text', 12, (row) => t(`reports.source.${row.source}`)),
        distance,
        field('quantity', 'number', 10, (row) => row.quantity, { unit: 'l/kWh', decimals: 2 }),
        field('price', 'number', 8, (row) => row.price, money),
        field('cost', 'number', 10, (row) => row.cost, money),
        field('refuels', 'number', 7, (row) => row.refuels),
      ]);
      totals = report.fuelTypes.map((type) => ({
        label: `${fuelName(type.fuelType) || t('reports.fuel.unknown')} (${type.energyUnit})`,
        value: number(type.quantity, 2),
      }));
      totals.push(
        total(
          'cost',
          report.fuelTypes.reduce((sum, type) => sum + (type.cost ?? 0), 0),
          2,
          report.currency,
        ),
      );
      break;
    }
    case 'co2':
      table(report.rows, [
        name,
        department,
        fuelType,
        distance,
        field('method', 'text', 14, (row) => t(`reports.co2Method.${row.method}`)),
        field('gPerKm', 'number', 8, (row) => row.gPerKm, { unit: 'g/km', decimals: 1 }),
        field('quantity', 'number', 10, (row) => row.fuelQuantity, { unit: 'l/kWh', decimals: 2 }),
        field('co2', 'number', 10, (row) => row.co2Kg, { unit: 'kg', decimals: 1 }),
      ]);
      totals = [total('co2', report.totalKg, 1, 'kg')];
      for (const each of report.departments) totals.push({ label: `${t('reports.col.department')}: ${each.name}`, unit: 'kg', value: number(each.co2Kg, 1) });
      for (const factor of report.factors) notes.push([co2FactorNote(factor), factor.verified ? '' : t('reports.note.co2FactorUnverified')].filter(Boolean).join(' '));
      break;
    case 'environment': {
      const groups = (period: EnvironmentReport['current']) => period.groups.map((group) => ({ ...group, period: `${period.from} – ${period.to}` }));
      table(
        [...groups(report.current), ...groups(report.previous)],
        [
          field('period', 'text', 12, (row) => row.period),
          fuelType,
          field('vehicleType', 'text', 14, (row) => t(`reports.vehicleType.${row.vehicleType}`)),
          field('vehicles', 'number', 7, (row) => row.vehicles),
          distance,
          field('energy', 'number', 10, (row) => row.energy, { decimals: 1 }),
          field('energyUnit', 'text', 6, (row) => row.energyUnit),
          field('co2', 'number', 10, (row) => row.co2Kg, { unit: 'kg', decimals: 1 }),
        ],
      );
      totals = [
        total('distance', report.current.distanceKm, 1, 'km'),
        total('co2', report.current.co2Kg, 1, 'kg'),
        total('electricShare', report.current.electricShare * 100, 1, '%'),
        total('previousDistance', report.previous.distanceKm, 1, 'km'),
        total('previousCo2', report.previous.co2Kg, 1, 'kg'),
        total('previousElectricShare', report.previous.electricShare * 100, 1, '%'),
      ];
      for (const factor of report.factors) notes.push(co2FactorNote(factor));
      break;
    }
  }
  const generatedAt = new Date(report.generatedAt);
  return {
    title: t(`reports.title.${report.kind}`),
    subject: report.units.length === 1 ? report.units[0]!.name : t('reports.subject.fleet'),
    language,
    timeZone: report.timeZone,
    generatedAt,
    brand,
    facts,
    columns,
    rows,
    totals,
    notes,
    footer: [t(`reports.title.${report.kind}`), `${report.from} – ${report.to}`, formatInstant(generatedAt, report.timeZone)],
  };
}
