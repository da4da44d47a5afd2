import type { Clock } from '../../lib/clock';
import type { DatabaseHandle } from '../../lib/db/client';
import {
  DEFAULT_EXPORT_BRAND,
  type ExportBrand,
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

/** A report as the export kit's document: its rows, the figures above them and its totals. */
export function reportDocument(report: FleetReport, language: Language, brand: ExportBrand): ExportDocument {
  const t = (key: string, params?: Record<string, string | number>) => translate(language, key, params);
  const col = (key: string, type: ExportColumn['type'], width: number, extra: Partial<ExportColumn> = {}): ExportColumn => ({
    label: t(`reports.col.${key}`),
    type,
    width,
    ...extra,
  });
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
  const fuelName = (fuel: FuelType | null) => (fuel ? t(`reports.fuel.${fuel}`) : '');
  switch (report.kind) {
    case 'summary':
      columns = [
        col('name', 'text', 22),
        col('department', 'text', 14),
        col('trips', 'number', 7),
        col('distance', 'number', 10, { unit: 'km', decimals: 1 }),
        col('business', 'number', 10, { unit: 'km', decimals: 1 }),
        col('private', 'number', 10, { unit: 'km', decimals: 1 }),
        col('drivingTime', 'number', 9, { unit: 'h', decimals: 1 }),
        col('idleTime', 'number', 9, { unit: 'h', decimals: 1 }),
        col('stops', 'number', 7),
        col('avgSpeed', 'number', 8, { unit: 'km/h', decimals: 1 }),
        col('maxSpeed', 'number', 8, { unit: 'km/h', decimals: 1 }),
      ];
      rows = report.rows.map((row) => [
        row.name,
        row.department?.name ?? '',
        row.trips,
        row.distanceKm,
        row.distanceByType.business,
        row.distanceByType.private,
        hours(row.drivingS),
        hours(row.idleS),
        row.stops,
        row.avgSpeedKmh,
        row.maxSpeedKmh,
      ]);
      totals = [
        { label: t('reports.col.trips'), value: number(report.fleet.trips, 0) },
        { label: t('reports.col.distance'), unit: 'km', value: number(report.fleet.distanceKm, 1) },
        { label: t('reports.col.business'), unit: 'km', value: number(report.fleet.distanceByType.business, 1) },
        { label: t('reports.col.private'), unit: 'km', value: number(report.fleet.distanceByType.private, 1) },
        { label: t('reports.col.drivingTime'), unit: 'h', value: number(hours(report.fleet.drivingS), 1) },
        { label: t('reports.col.idleTime'), unit: 'h', value: number(hours(report.fleet.idleS), 1) },
      ];
      for (const department of report.departments)
        totals.push({ label: `${t('reports.col.department')}: ${department.name}`, unit: 'km', value: number(department.distanceKm, 1) });
      break;
    case 'eco':
      columns = [
        col('rank', 'number', 6),
        col('name', 'text', 22),
        col('score', 'number', 8, { decimals: 1 }),
        col('trips', 'number', 7),
        col('distance', 'number', 10, { unit: 'km', decimals: 1 }),
        col('acceleration', 'number', 10, { unit: '/100 km', decimals: 2 }),
        col('braking', 'number', 10, { unit: '/100 km', decimals: 2 }),
        col('cornering', 'number', 10, { unit: '/100 km', decimals: 2 }),
        col('overspeed', 'number', 9, { unit: '%', decimals: 1 }),
        col('idle', 'number', 9, { unit: '%', decimals: 1 }),
      ];
      rows = report.rows.map((row) => [
        row.rank,
        row.name,
        row.score,
        row.trips,
        row.distanceKm,
        row.accelerationPer100Km,
        row.brakingPer100Km,
        row.corneringPer100Km,
        row.overspeedShare * 100,
        row.idleShare * 100,
      ]);
      totals = [
        { label: t('reports.col.score'), value: number(report.fleet.score, 1) },
        { label: t('reports.col.trips'), value: number(report.fleet.trips, 0) },
        { label: t('reports.col.distance'), unit: 'km', value: number(report.fleet.distanceKm, 1) },
      ];
      notes.push(t('reports.note.ecoScore'));
      break;
    case 'fuel':
      columns = [
        col('name', 'text', 22),
        col('fuelType', 'text', 10),
        col('source', 'text', 12),
        col('distance', 'number', 10, { unit: 'km', decimals: 1 }),
        col('quantity', 'number', 10, { unit: 'l/kWh', decimals: 2 }),
        col('price', 'number', 8, { unit: report.currency, decimals: 2 }),
        col('cost', 'number', 10, { unit: report.currency, decimals: 2 }),
        col('refuels', 'number', 7),
      ];
      rows = report.rows.map((row) => [
        row.name,
        fuelName(row.fuelType),
        t(`reports.source.${row.source}`),
        row.distanceKm,
        row.quantity,
        row.price,
        row.cost,
        row.refuels,
      ]);
      totals = report.fuelTypes.map((type) => ({
        label: `${fuelName(type.fuelType) || t('reports.fuel.unknown')} (${type.energyUnit})`,
        value: number(type.quantity, 2),
      }));
      totals.push({
        label: t('reports.col.cost'),
        unit: report.currency,
        value: number(
          report.fuelTypes.reduce((sum, type) => sum + (type.cost ?? 0), 0),
          2,
        ),
      });
      break;
    case 'co2':
      columns = [
        col('name', 'text', 22),
        col('department', 'text', 14),
        col('fuelType', 'text', 10),
        col('distance', 'number', 10, { unit: 'km', decimals: 1 }),
        col('method', 'text', 14),
        col('gPerKm', 'number', 8, { unit: 'g/km', decimals: 1 }),
        col('quantity', 'number', 10, { unit: 'l/kWh', decimals: 2 }),
        col('co2', 'number', 10, { unit: 'kg', decimals: 1 }),
      ];
      rows = report.rows.map((row) => [
        row.name,
        row.department?.name ?? '',
        fuelName(row.fuelType),
        row.distanceKm,
        t(`reports.co2Method.${row.method}`),
        row.gPerKm,
        row.fuelQuantity,
        row.co2Kg,
      ]);
      totals = [{ label: t('reports.col.co2'), unit: 'kg', value: number(report.totalKg, 1) }];
      for (const department of report.departments)
        totals.push({ label: `${t('reports.col.department')}: ${department.name}`, unit: 'kg', value: number(department.co2Kg, 1) });
      for (const factor of report.factors)
        notes.push(
          [
            t('reports.note.co2Factor', { fuel: fuelName(factor.fuelType), country: factor.country, year: factor.year, value: factor.kgPerUnit, unit: factor.energyUnit, basis: t(`reports.co2Basis.${factor.basis}`), source: factor.source }),
            factor.verified ? '' : t('reports.note.co2FactorUnverified'),
          ]
            .filter(Boolean)
            .join(' '),
        );
      break;
    case 'environment': {
      columns = [
        col('period', 'text', 12),
        col('fuelType', 'text', 10),
        col('vehicleType', 'text', 14),
        col('vehicles', 'number', 7),
        col('distance', 'number', 10, { unit: 'km', decimals: 1 }),
        col('energy', 'number', 10, { decimals: 1 }),
        col('energyUnit', 'text', 6),
        col('co2', 'number', 10, { unit: 'kg', decimals: 1 }),
      ];
      const periodRows = (label: string, period: EnvironmentReport['current']): ExportRow[] =>
        period.groups.map((group) => [label, fuelName(group.fuelType), t(`reports.vehicleType.${group.vehicleType}`), group.vehicles, group.distanceKm, group.energy, group.energyUnit, group.co2Kg]);
      rows = [
        ...periodRows(`${report.current.from} – ${report.current.to}`, report.current),
        ...periodRows(`${report.previous.from} – ${report.previous.to}`, report.previous),
      ];
      totals = [
        { label: t('reports.col.distance'), unit: 'km', value: number(report.current.distanceKm, 1) },
        { label: t('reports.col.co2'), unit: 'kg', value: number(report.current.co2Kg, 1) },
        { label: t('reports.col.electricShare'), unit: '%', value: number(report.current.electricShare * 100, 1) },
        { label: t('reports.col.previousDistance'), unit: 'km', value: number(report.previous.distanceKm, 1) },
        { label: t('reports.col.previousCo2'), unit: 'kg', value: number(report.previous.co2Kg, 1) },
        { label: t('reports.col.previousElectricShare'), unit: '%', value: number(report.previous.electricShare * 100, 1) },
      ];
      for (const factor of report.factors)
        notes.push(t('reports.note.co2Factor', { fuel: fuelName(factor.fuelType), country: factor.country, year: factor.year, value: factor.kgPerUnit, unit: factor.energyUnit, basis: t(`reports.co2Basis.${factor.basis}`), source: factor.source }));
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
