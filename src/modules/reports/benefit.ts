import { and, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { fieldError, forbidden, notFound } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import { addToDay, dayOf, startOfDay } from '../../lib/time';
import { accountDirectory, userDirectory, userNames } from '../accounts/views';
import type { Actor } from '../auth/model';
import { tripDistances } from '../trips/views';
import type { UnitView } from '../units/model';
import type { UnitService } from '../units/service';
import { unitBenefitSettings } from '../units/views';
import { isLanguage, translate } from '../../lib/i18n';
import type { ExportDocument } from '../../lib/export';
import { BRAND_PUBLIC_DIR, createBrandService } from '../brands/service';
import { fleetReportUnits, reportUnits } from './benefit-access';
import { buildBenefitDocument } from './benefit-export';
import {
  availableDays,
  daysInMonth,
  daysInUkTaxYear,
  KM_PER_MILE,
  MissingBenefitParameter,
  monthsBetween,
  noAnnualBenefit,
  noBenefitCarFuel,
  noMileage,
  type SeContributionCategory,
  seEmployerContributions,
  ukAdvisoryFuelRate,
  ukBenefitCarFuel,
  type OptionalParams,
  type Params,
  type Reimbursement,
  roundMoney,
  seAnnualBenefit,
  seMileage,
  ukAnnualBenefit,
  ukMileage,
  ukTaxYear,
  ukTaxYearStart,
} from './benefit-formulas';
import { benefitCars, benefitParameters } from './benefit-schema';
import {
  BENEFIT_CURRENCY,
  type BenefitCarInput,
  type BenefitCarRow,
  type BenefitCarView,
  type BenefitCountry,
  type BenefitCurrencyTotals,
  type BenefitExportQuery,
  type BenefitMonth,
  type BenefitParameterUsed,
  type BenefitPowertrain,
  type BenefitQuery,
  type BenefitReimbursementRow,
  type BenefitReport,
  type BenefitValuation,
  REPORT_MAX_MONTHS,
} from './model';

/**
 * What the benefit report reads of the units: who sees which unit (their service); the units' benefit-car fields and the
 * trip log's distances come from the published views `unit_benefit_settings` and `trip_distances`.
 */
export interface BenefitDeps {
  units: Pick<UnitService, 'list' | 'visible'>;
}

/** An account's country as the benefit rules know it (free text on the account); Sweden when it names none of them. */
export function benefitCountryOf(country: string | null | undefined): BenefitCountry {
  const value = (country ?? '').trim().toLowerCase();
  if (/^(no|nor|norway|norge|noreg|norwegen)$/.test(value) || value.startsWith('norw') || value.startsWith('norg')) return 'NO';
  if (/^(uk|gb|gbr|great britain|united kingdom|storbritannien|storbritannia|england|scotland|wales|northern ireland)$/.test(value) || value.startsWith('united kingdom')) return 'GB';
  return 'SE';
}

const DEFAULT_CAR: BenefitCarInput = {
  country: null,
  powertrain: 'combustion',
  vehicleClass: 'car',
  listPrice: null,
  extraEquipment: 0,
  firstRegistered: null,
  vehicleTax: 0,
  electricRangeMiles: null,
  dieselRde2: false,
  capitalContribution: 0,
  holderUserId: null,
  availableFrom: null,
  availableUntil: null,
  holderBirthYear: null,
  engineCc: null,
};

type CarRow = typeof benefitCars.$inferSelect;

function carInputOf(row: CarRow | undefined): BenefitCarInput {
  if (!row) return { ...DEFAULT_CAR };
  return {
    country: row.country,
    powertrain: row.powertrain as BenefitPowertrain,
    vehicleClass: row.vehicleClass,
    listPrice: row.listPrice,
    extraEquipment: row.extraEquipment,
    firstRegistered: row.firstRegistered,
    vehicleTax: row.vehicleTax,
    electricRangeMiles: row.electricRangeMiles,
    dieselRde2: row.dieselRde2,
    capitalContribution: row.capitalContribution,
    holderUserId: row.holderUserId,
    availableFrom: row.availableFrom,
    availableUntil: row.availableUntil,
    holderBirthYear: row.holderBirthYear,
    engineCc: row.engineCc,
  };
}

/** The parameters of a report, read once; each lookup is remembered so the report can list what it used. */
class ParameterBook {
  private readonly values = new Map<string, { value: number; verified: boolean; source: string }>();
  private readonly used = new Set<string>();

  constructor(rows: Array<{ country: BenefitCountry; year: number; key: string; value: number; verified: boolean; source: string }>) {
    for (const row of rows) this.values.set(`${row.country}|${row.year}|${row.key}`, row);
  }

  optional(country: BenefitCountry, year: number): OptionalParams {
    return (key) => {
      const id = `${country}|${year}|${key}`;
      const found = this.values.get(id);
      if (!found) return undefined;
      this.used.add(id);
      return found.value;
    };
  }

  of(country: BenefitCountry, year: number): Params {
    const optional = this.optional(country, year);
    return (key) => {
      const value = optional(key);
      if (value === undefined) throw new MissingBenefitParameter(country, year, key);
      return value;
    };
  }

  usedParameters(): BenefitParameterUsed[] {
    return [...this.used]
      .map((id) => {
        const [country, year, key] = id.split('|') as [BenefitCountry, string, string];
        const found = this.values.get(id)!;
        return { country, year: Number(year), key, value: found.value, verified: found.verified, source: found.source };
      })
      .sort((a, b) => a.country.localeCompare(b.country) || a.year - b.year || a.key.localeCompare(b.key));
  }
}

/** The report's whole months: from the first day of the month of `from` to the last day of the month of `to`. */
export function resolveBenefitRange(query: { from?: string; to?: string }, today: string): { from: string; to: string; months: string[] } {
  const from = `${(query.from ?? `${today.slice(0, 4)}-01-01`).slice(0, 7)}-01`;
  const toMonth = (query.to ?? today).slice(0, 7);
  const to = `${toMonth}-${String(daysInMonth(toMonth)).padStart(2, '0')}`;
  if (to < from) throw fieldError('to', 'validation.dateRange.order');
  const months = monthsBetween(from, to);
  if (months.length > REPORT_MAX_MONTHS) throw fieldError('to', 'validation.dateRange.tooLong');
  return { from, to, months };
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * The trip log's distances as the benefit report reads them: summed per unit, local day (or local month, dated its first
 * day), trip type and driver. Every rule here is linear in the distance and changes at most at a day's start (months,
 * years, the UK tax year, the AMAP step counted in order of days), so the sums give the same amounts as the single trips.
 */
interface TripDistance {
  unitId: number;
  day: string;
  distanceM: number;
  type: 'business' | 'private' | 'other';
  driverUserId: number | null;
}

interface TripOfCar {
  trip: TripDistance;
  day: string;
}

/** A unit's benefit-car fields (the units module's published view). */
interface UnitBenefitFields {
  fuelType: string | null;
  fuelConsumptionPer10Km: number | null;
  co2GPerKm: number | null;
  fuelPayer: 'company' | 'private' | null;
  reimbursementPer10Km: number | null;
}

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * Spec §1 "car benefit and reimbursement": the benefit value of each benefit car per month it was available (Sweden,
 * Norway, UK rules and parameters per year), its employer contributions, and the reimbursements of business driving in
 * private cars and in benefit cars whose fuel the driver pays, from the trip log's distances.
 */
export function createBenefitService(platform: Platform, deps: BenefitDeps) {
  const db = platform.database.db;
  const { units } = deps;

  async function accountCountry(accountId: number): Promise<BenefitCountry> {
    const [row] = await db.select({ country: accountDirectory.country }).from(accountDirectory).where(eq(accountDirectory.id, accountId)).limit(1);
    return benefitCountryOf(row?.country);
  }

  async function userNamesOf(accountId: number, ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .select({ id: userDirectory.id, firstName: userDirectory.firstName, lastName: userDirectory.lastName })
      .from(userDirectory)
      .where(and(eq(userDirectory.accountId, accountId), inArray(userDirectory.id, ids)));
    return new Map(rows.map((row) => [row.id, `${row.firstName} ${row.lastName}`.trim()]));
  }

  /**
   * The distances of the units' trips starting in [from, to) (instants) per local day (`day`) or local month (`month`:
   * dated its first day), type and driver, by date.
   */
  async function tripsOf(accountId: number, unitIds: number[], from: Date, to: Date, timeZone: string, per: 'day' | 'month'): Promise<TripDistance[]> {
    if (unitIds.length === 0) return [];
    const local = sql`${tripDistances.startTime} AT TIME ZONE ${timeZone}`;
    const day = per === 'day' ? sql<string>`to_char(${local}, 'YYYY-MM-DD')` : sql<string>`to_char(${local}, 'YYYY-MM') || '-01'`;
    const rows = await db
      .select({ unitId: tripDistances.unitId, day, type: tripDistances.type, driverUserId: tripDistances.driverUserId, distanceM: sql<number>`sum(${tripDistances.distanceM})::float8` })
      .from(tripDistances)
      .where(and(eq(tripDistances.accountId, accountId), inArray(tripDistances.unitId, unitIds), gte(tripDistances.startTime, from), lt(tripDistances.startTime, to)))
      // By position: the day's expression carries the zone as a parameter of its own in the select list.
      .groupBy(sql`1, 2, 3, 4`);
    return rows.map((row) => ({ unitId: row.unitId, day: row.day, type: row.type, driverUserId: row.driverUserId, distanceM: Number(row.distanceM) }));
  }

  /** The units' benefit-car fields, in the caller's account. */
  async function benefitFieldsOf(accountId: number, unitIds: number[]): Promise<Map<number, UnitBenefitFields>> {
    if (unitIds.length === 0) return new Map();
    const rows = await db
      .select()
      .from(unitBenefitSettings)
      .where(and(eq(unitBenefitSettings.accountId, accountId), inArray(unitBenefitSettings.unitId, unitIds)));
    return new Map(
      rows.map((row) => [
        row.unitId,
        {
          fuelType: row.fuelType,
          fuelConsumptionPer10Km: numberOrNull(row.fuelConsumptionPer10km),
          co2GPerKm: numberOrNull(row.co2GPerKm),
          fuelPayer: row.fuelPayer,
          reimbursementPer10Km: numberOrNull(row.reimbursementPer10km),
        },
      ]),
    );
  }

  const service = {
    /** The car's valuation details (any user who sees the unit). Another account's unit is 404. */
    async car(actor: Actor, unitId: number): Promise<BenefitCarView> {
      await units.visible(actor, unitId);
      const [row] = await db.select().from(benefitCars).where(and(eq(benefitCars.unitId, unitId), eq(benefitCars.accountId, actor.accountId)));
      const input = carInputOf(row);
      return { ...input, unitId, effectiveCountry: input.country ?? (await accountCountry(actor.accountId)), updatedAt: row?.updatedAt.toISOString() ?? null };
    },

    /** Saves the car's valuation details (administrators). The holder must be a user of the account. */
    async saveCar(actor: Actor, unitId: number, input: BenefitCarInput): Promise<BenefitCarView> {
      if (actor.role !== 'admin' || actor.acting) throw forbidden();
      await units.visible(actor, unitId);
      if (input.holderUserId !== null && !(await userNamesOf(actor.accountId, [input.holderUserId])).has(input.holderUserId)) {
        throw fieldError('holderUserId', 'reports.benefit.holderNotFound');
      }
      if (input.availableFrom && input.availableUntil && input.availableUntil < input.availableFrom) throw fieldError('availableUntil', 'validation.dateRange.order');
      const values = { ...input, accountId: actor.accountId, updatedBy: actor.userId, updatedAt: new Date() };
      await db
        .insert(benefitCars)
        .values({ unitId, ...values })
        .onConflictDoUpdate({ target: [benefitCars.unitId, benefitCars.accountId], set: values });
      return service.car(actor, unitId);
    },

    /** Every parameter per country and year, with whether it is verified and its source. */
    async parameters(): Promise<BenefitParameterUsed[]> {
      const rows = await db.select().from(benefitParameters);
      return rows
        .map((row) => ({ country: row.country, year: row.year, key: row.key, value: row.value, verified: row.verified, source: row.source }))
        .sort((a, b) => a.country.localeCompare(b.country) || a.year - b.year || a.key.localeCompare(b.key));
    },

    /** The report as a file (spec §1 exports): in the query's language, else X-Lang, else the user's; the sub-site's brand. */
    async exportFile(actor: Actor, query: BenefitExportQuery, headers: Record<string, string | undefined>): Promise<BenefitExportFile> {
      const header = headers['x-lang'];
      const language = query.lang ?? (isLanguage(header) ? header : actor.language);
      const report = await service.report(actor, query);
      const [account] = await db.select({ subsiteId: accountDirectory.subsiteId }).from(accountDirectory).where(eq(accountDirectory.id, actor.accountId)).limit(1);
      const brand = await createBrandService(db).exportBrand(Number(account?.subsiteId ?? 0), BRAND_PUBLIC_DIR);
      const document = buildBenefitDocument(report, language, actor.timezone || 'Europe/Stockholm', platform.clock.now(), brand);
      return { document, format: query.format, fileName: `${translate(language, 'benefitExport.file')}-${report.from}-${report.to}.${query.format}` };
    },

    async report(actor: Actor, query: BenefitQuery): Promise<BenefitReport> {
      const timeZone = actor.timezone || 'Europe/Stockholm';
      const range = resolveBenefitRange(query, dayOf(platform.clock.now(), timeZone));
      // Another account's driver is a 404 like a missing one.
      if (query.driverId !== undefined && !(await userNamesOf(actor.accountId, [query.driverId])).has(query.driverId)) throw notFound('reports.benefit.driverNotFound');

      // The units: named ones (404 for others', §6 allows the benefit report for locked cars), else the fleet.
      let views: UnitView[];
      if (query.unitIds && query.unitIds.length > 0) {
        views = await reportUnits(units, actor, 'benefit', query.unitIds);
        if (query.departmentId !== undefined) views = views.filter((unit) => unit.Department?.id === query.departmentId);
      } else {
        views = fleetReportUnits('benefit', await units.list(actor, query.departmentId === undefined ? {} : { departmentId: query.departmentId }));
      }
      views = views.filter((unit) => unit.CarUsage !== 'none');

      const ids = views.map((unit) => unit.ID);
      // Independent reads, side by side.
      const [carRows, defaultCountry, parameterRows, fields] = await Promise.all([
        ids.length === 0 ? [] : db.select().from(benefitCars).where(and(eq(benefitCars.accountId, actor.accountId), inArray(benefitCars.unitId, ids))),
        accountCountry(actor.accountId),
        db.select().from(benefitParameters),
        benefitFieldsOf(actor.accountId, ids),
      ]);
      const carsById = new Map(carRows.map((row) => [row.unitId, row]));
      const book = new ParameterBook(parameterRows.map((row) => ({ ...row, country: row.country })));

      interface Car {
        view: UnitView;
        detail: UnitBenefitFields;
        input: BenefitCarInput;
        hasDetails: boolean;
        country: BenefitCountry;
        trips: TripOfCar[] | null;
      }
      // Spec §6: distances only of the cars the caller has access to. Norway's 40 000 km counts the whole year so far,
      // the UK's 10 000 miles the tax year so far: read from the earlier of those when such cars are in the report.
      const withAccess = views.filter((view) => view.HasAccess);
      const countryOf = (view: UnitView) => carInputOf(carsById.get(view.ID)).country ?? defaultCountry;
      let readFrom = range.from;
      if (withAccess.some((view) => countryOf(view) === 'NO')) readFrom = `${range.from.slice(0, 4)}-01-01`;
      if (withAccess.some((view) => countryOf(view) === 'GB' && view.CarUsage === 'private')) {
        const taxYearStart = ukTaxYearStart(ukTaxYear(range.from));
        if (taxYearStart < readFrom) readFrom = taxYearStart;
      }
      // Reimbursements count day by day (the UK's AMAP step, the UK tax year from 6 April); every other rule here
      // changes at most at a month's start (the range is whole months), so other cars' distances are read per month:
      // a year of a fleet's benefit cars is then a few thousand rows rather than tens of thousands.
      const reimbursed = (view: UnitView) => view.CarUsage === 'private' || (view.CarUsage === 'benefit' && fields.get(view.ID)?.fuelPayer === 'private');
      const readStart = startOfDay(readFrom, timeZone);
      const readEnd = startOfDay(addToDay(range.to, { days: 1 }), timeZone);
      const [daily, monthly] = await Promise.all([
        tripsOf(actor.accountId, withAccess.filter(reimbursed).map((view) => view.ID), readStart, readEnd, timeZone, 'day'),
        tripsOf(actor.accountId, withAccess.filter((view) => !reimbursed(view)).map((view) => view.ID), readStart, readEnd, timeZone, 'month'),
      ]);
      const allTrips = [...daily, ...monthly].sort(
        (a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.unitId - b.unitId || (a.driverUserId ?? 0) - (b.driverUserId ?? 0) || a.type.localeCompare(b.type)),
      );
      const tripsByUnit = new Map<number, TripOfCar[]>();
      for (const trip of allTrips) {
        let list = tripsByUnit.get(trip.unitId);
        if (!list) {
          list = [];
          tripsByUnit.set(trip.unitId, list);
        }
        list.push({ trip, day: trip.day });
      }
      const cars: Car[] = [];
      for (const view of views) {
        const row = carsById.get(view.ID);
        const input = carInputOf(row);
        const country = input.country ?? defaultCountry;
        const detail = fields.get(view.ID) ?? { fuelType: null, fuelConsumptionPer10Km: null, co2GPerKm: null, fuelPayer: null, reimbursementPer10Km: null };
        let carTrips: TripOfCar[] | null = null;
        if (view.HasAccess) {
          const firstDay = country === 'NO' ? `${range.from.slice(0, 4)}-01-01` : country === 'GB' && view.CarUsage === 'private' ? ukTaxYearStart(ukTaxYear(range.from)) : range.from;
          carTrips = (tripsByUnit.get(view.ID) ?? []).filter((entry) => entry.day >= firstDay);
        }
        if (query.driverId !== undefined) {
          const drove = carTrips?.some((entry) => entry.trip.driverUserId === query.driverId) ?? false;
          if (input.holderUserId !== query.driverId && !drove) continue;
        }
        cars.push({ view, detail, input, hasDetails: row !== undefined, country, trips: carTrips });
      }

      const holderNames = await userNamesOf(actor.accountId, [...new Set(cars.map((car) => car.input.holderUserId).filter((id): id is number => id !== null))]);
      // Drivers of trips by name (deleted users too: history keeps who drove).
      const driverIds = [...new Set(cars.flatMap((car) => (car.trips ?? []).map((entry) => entry.trip.driverUserId)).filter((id): id is number => id !== null))];
      const driverNames = new Map<number, string>();
      if (driverIds.length > 0) {
        const named = await db
          .select({ id: userNames.id, firstName: userNames.firstName, lastName: userNames.lastName, email: userNames.email })
          .from(userNames)
          .where(and(eq(userNames.accountId, actor.accountId), inArray(userNames.id, driverIds)));
        for (const user of named) driverNames.set(user.id, `${user.firstName} ${user.lastName}`.trim() || user.email);
      }
      const inPeriod = (day: string) => day >= range.from && day <= range.to;

      // --- Benefit value per car and month ---
      const carRows2: BenefitCarRow[] = [];
      for (const car of cars) {
        const { view, detail, input, country } = car;
        const problems = new Set<string>();
        if (!car.hasDetails) problems.add('reports.benefit.carDetailsMissing');
        if (view.CarUsage === 'benefit') {
          if (detail.fuelConsumptionPer10Km === null) problems.add('units.benefit.fuelRequired');
          if (detail.co2GPerKm === null) problems.add('units.benefit.co2Required');
          if (input.listPrice === null) problems.add('reports.benefit.listPriceMissing');
          if (country !== 'GB' && input.firstRegistered === null) problems.add('reports.benefit.firstRegisteredMissing');
        } else if (detail.reimbursementPer10Km === null) {
          problems.add('units.reimbursement.positive');
        }

        const distance = car.trips === null ? null : { business: 0, private: 0, other: 0 };
        if (distance && car.trips) {
          for (const { trip, day } of car.trips) {
            if (inPeriod(day) && (query.driverId === undefined || trip.driverUserId === query.driverId)) distance[trip.type] += trip.distanceM / 1000;
          }
        }

        const months: BenefitMonth[] = [];
        let valuation: BenefitValuation | null = null;
        let contributions = 0;
        let rate = 0;
        let category: SeContributionCategory = 'standard';
        const valuable = view.CarUsage === 'benefit' && input.listPrice !== null && (country === 'GB' ? detail.co2GPerKm !== null : input.firstRegistered !== null);
        if (valuable) {
          const listPrice = input.listPrice!;
          for (const month of range.months) {
            const days = availableDays(month, input.availableFrom, input.availableUntil);
            if (days === 0) continue;
            try {
              if (country === 'SE') {
                const year = Number(month.slice(0, 4));
                const p = book.of('SE', year);
                const result = seAnnualBenefit(
                  { listPrice, extraEquipment: input.extraEquipment, firstTaxable: input.firstRegistered!, vehicleTax: input.vehicleTax, powertrain: input.powertrain },
                  p,
                  book.optional('SE', year),
                  `${month}-01`,
                );
                // A started month counts as a month the car was available.
                const value = result.annual / 12;
                const contribution = seEmployerContributions(value, month, input.holderBirthYear, p, book.optional('SE', year));
                rate = contribution.rate;
                category = contribution.category;
                months.push({ month, share: 1, value, annualValue: result.annual });
                contributions += contribution.amount;
                valuation = {
                  country,
                  model: result.model,
                  listPrice,
                  extraEquipment: input.extraEquipment,
                  reduction: result.reduction,
                  reductionCapped: result.reductionCapped,
                  priceUsed: result.priceUsed,
                  sixYearRule: result.sixYearRule,
                  baseFactor: null,
                  appropriatePercentage: null,
                  parts: result.parts.map((part) => ({ key: part.key, amount: roundMoney(part.amount) })),
                };
              } else if (country === 'NO') {
                const year = Number(month.slice(0, 4));
                const p = book.of('NO', year);
                const businessKm = (car.trips ?? [])
                  .filter((entry) => entry.trip.type === 'business' && entry.day.startsWith(`${year}-`))
                  .reduce((sum, entry) => sum + entry.trip.distanceM / 1000, 0);
                const result = noAnnualBenefit(
                  { listPrice, extraEquipment: input.extraEquipment, firstRegistered: input.firstRegistered!, vehicleClass: input.vehicleClass, powertrain: input.powertrain },
                  p,
                  year,
                  businessKm,
                );
                rate = p('employerContributionRate');
                const value = result.annual / 12;
                months.push({ month, share: 1, value, annualValue: result.annual });
                contributions += value * rate;
                valuation = {
                  country,
                  model: input.vehicleClass === 'van' ? 'van' : 'standard',
                  listPrice,
                  extraEquipment: input.extraEquipment,
                  reduction: result.reduction,
                  reductionCapped: false,
                  priceUsed: result.priceUsed,
                  sixYearRule: false,
                  baseFactor: result.baseFactor,
                  appropriatePercentage: null,
                  parts: [],
                };
              } else {
                // UK: pro-rated by the days available, each day at the rules of its tax year.
                let value = 0;
                let annual = 0;
                const first = Number(`${month}-01`.slice(8, 10));
                const dayCount = daysInMonth(month);
                for (let d = first; d <= dayCount; d++) {
                  const day = `${month}-${String(d).padStart(2, '0')}`;
                  if ((input.availableFrom && day < input.availableFrom) || (input.availableUntil && day > input.availableUntil)) continue;
                  const taxYear = ukTaxYear(day);
                  const p = book.of('GB', taxYear);
                  const result = ukAnnualBenefit(
                    {
                      listPrice,
                      extraEquipment: input.extraEquipment,
                      capitalContribution: input.capitalContribution,
                      co2: detail.co2GPerKm!,
                      electricRangeMiles: input.electricRangeMiles,
                      dieselSupplement: detail.fuelType === 'diesel' && !input.dieselRde2,
                    },
                    p,
                  );
                  const dayValue = result.annual / daysInUkTaxYear(taxYear);
                  rate = p('class1aNic');
                  value += dayValue;
                  contributions += dayValue * rate;
                  annual = result.annual;
                  valuation = {
                    country,
                    model: 'p11d',
                    listPrice,
                    extraEquipment: input.extraEquipment,
                    reduction: result.contribution,
                    reductionCapped: result.contribution < input.capitalContribution,
                    priceUsed: result.priceUsed,
                    sixYearRule: false,
                    baseFactor: null,
                    appropriatePercentage: result.appropriatePercentage,
                    parts: [],
                  };
                }
                months.push({ month, share: days / dayCount, value, annualValue: annual });
              }
            } catch (error) {
              if (!(error instanceof MissingBenefitParameter)) throw error;
              problems.add('reports.benefit.noParameters');
            }
          }
        }
        if (car.view.HasAccess === false && country === 'NO' && view.CarUsage === 'benefit') problems.add('reports.benefit.distanceHidden');
        const benefitValue = months.reduce((sum, month) => sum + month.value, 0);
        carRows2.push({
          unitId: view.ID,
          unitName: view.Name,
          registrationNumber: view.RegistrationNumber,
          carUsage: view.CarUsage,
          country,
          currency: BENEFIT_CURRENCY[country],
          holder: input.holderUserId === null ? null : { id: input.holderUserId, name: holderNames.get(input.holderUserId) ?? '' },
          hasAccess: view.HasAccess,
          valuation,
          months: months.map((month) => ({ ...month, value: roundMoney(month.value), annualValue: roundMoney(month.annualValue), share: Math.round(month.share * 10_000) / 10_000 })),
          benefitValue: roundMoney(benefitValue),
          employerContributionBasis: roundMoney(benefitValue),
          employerContributionRate: rate,
          employerContributionCategory: category,
          employerContributions: roundMoney(contributions),
          distanceKm: distance && { business: round1(distance.business), private: round1(distance.private), other: round1(distance.other) },
          problems: [...problems],
        });
      }

      // --- Reimbursements: business trips in private cars, and in benefit cars whose fuel the driver pays ---
      interface Reimbursable {
        car: Car;
        kind: 'ownCar' | 'benefitCarFuel';
        trip: TripDistance;
        day: string;
      }
      const reimbursable: Reimbursable[] = [];
      for (const car of cars) {
        if (!car.trips) continue;
        const kind = car.view.CarUsage === 'private' ? 'ownCar' : car.view.CarUsage === 'benefit' && car.detail.fuelPayer === 'private' ? 'benefitCarFuel' : null;
        if (!kind) continue;
        if (kind === 'benefitCarFuel' && car.country === 'GB' && car.detail.fuelType !== 'petrol' && car.detail.fuelType !== 'diesel' && car.detail.fuelType !== 'electricity') {
          // The UK's advisory fuel rates here cover petrol, diesel and electricity.
          carRows2.find((row) => row.unitId === car.view.ID)?.problems.push('reports.benefit.fuelRateNotApplied');
          continue;
        }
        for (const { trip, day } of car.trips) {
          if (trip.type !== 'business') continue;
          if (query.driverId !== undefined && trip.driverUserId !== query.driverId) continue;
          reimbursable.push({ car, kind, trip, day });
        }
      }
      // In order of days (the UK's AMAP step counts the miles driven before).
      reimbursable.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));

      const rows = new Map<string, BenefitReimbursementRow>();
      // UK: business miles of each driver so far in each tax year (the 10 000-mile step counts all their cars).
      const milesSoFar = new Map<string, number>();
      for (const { car, kind, trip, day } of reimbursable) {
        const km = trip.distanceM / 1000;
        const ukKey = `${trip.driverUserId ?? `unit:${car.view.ID}`}|${ukTaxYear(day)}`;
        const before = milesSoFar.get(ukKey) ?? 0;
        if (car.country === 'GB') milesSoFar.set(ukKey, before + km / KM_PER_MILE);
        if (!inPeriod(day)) continue;
        const year = Number(day.slice(0, 4));
        const paidPer10Km = car.detail.reimbursementPer10Km;
        let amount: Reimbursement;
        try {
          if (car.country === 'SE') amount = seMileage(kind, km, paidPer10Km, car.input.powertrain, book.of('SE', year));
          else if (car.country === 'NO') amount = kind === 'ownCar' ? noMileage(km, paidPer10Km, book.of('NO', year)) : noBenefitCarFuel(km, paidPer10Km, book.of('NO', year));
          else if (kind === 'ownCar') amount = ukMileage(before, km, paidPer10Km, book.of('GB', ukTaxYear(day)));
          else amount = ukBenefitCarFuel(km, paidPer10Km, ukAdvisoryFuelRate(car.detail.fuelType, car.input.engineCc, book.of('GB', ukTaxYear(day))) ?? 0);
        } catch (error) {
          if (!(error instanceof MissingBenefitParameter)) throw error;
          const row = carRows2.find((entry) => entry.unitId === car.view.ID);
          if (row && !row.problems.includes('reports.benefit.noParameters')) row.problems.push('reports.benefit.noParameters');
          continue;
        }
        const byDriver = query.groupBy === 'driver';
        const key = byDriver ? `${kind}|${car.country}|${trip.driverUserId ?? 'none'}` : `${kind}|${car.view.ID}`;
        let row = rows.get(key);
        if (!row) {
          row = {
            unitId: byDriver ? null : car.view.ID,
            unitName: byDriver ? null : car.view.Name,
            driverId: byDriver ? trip.driverUserId : null,
            driverName: byDriver ? (trip.driverUserId === null ? null : (driverNames.get(trip.driverUserId) ?? null)) : null,
            kind,
            country: car.country,
            currency: BENEFIT_CURRENCY[car.country],
            businessKm: 0,
            businessMiles: car.country === 'GB' ? 0 : null,
            milesBeforePeriod: car.country === 'GB' ? before : null,
            paid: 0,
            taxFree: 0,
            taxable: 0,
          };
          rows.set(key, row);
        }
        row.businessKm += km;
        if (row.businessMiles !== null) row.businessMiles += km / KM_PER_MILE;
        row.paid += amount.paid;
        row.taxFree += amount.taxFree;
        row.taxable += amount.taxable;
      }
      const reimbursements = [...rows.values()].map((row) => ({
        ...row,
        businessKm: round1(row.businessKm),
        businessMiles: row.businessMiles === null ? null : round1(row.businessMiles),
        milesBeforePeriod: row.milesBeforePeriod === null ? null : round1(row.milesBeforePeriod),
        paid: roundMoney(row.paid),
        taxFree: roundMoney(row.taxFree),
        taxable: roundMoney(row.taxable),
      }));
      reimbursements.sort((a, b) => (a.unitName ?? a.driverName ?? '').localeCompare(b.unitName ?? b.driverName ?? '') || a.kind.localeCompare(b.kind));

      const totals = new Map<string, BenefitCurrencyTotals>();
      const totalOf = (currency: BenefitCurrencyTotals['currency']) => {
        let total = totals.get(currency);
        if (!total) {
          total = { currency, benefitValue: 0, employerContributionBasis: 0, employerContributions: 0, reimbursementPaid: 0, reimbursementTaxFree: 0, reimbursementTaxable: 0 };
          totals.set(currency, total);
        }
        return total;
      };
      for (const row of carRows2) {
        if (row.months.length === 0) continue;
        const total = totalOf(row.currency);
        total.benefitValue = roundMoney(total.benefitValue + row.benefitValue);
        total.employerContributionBasis = roundMoney(total.employerContributionBasis + row.employerContributionBasis);
        total.employerContributions = roundMoney(total.employerContributions + row.employerContributions);
      }
      for (const row of reimbursements) {
        const total = totalOf(row.currency);
        total.reimbursementPaid = roundMoney(total.reimbursementPaid + row.paid);
        total.reimbursementTaxFree = roundMoney(total.reimbursementTaxFree + row.taxFree);
        total.reimbursementTaxable = roundMoney(total.reimbursementTaxable + row.taxable);
      }

      return {
        from: range.from,
        to: range.to,
        groupBy: query.groupBy,
        cars: carRows2,
        reimbursements,
        parameters: book.usedParameters(),
        totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
      };
    },
  };
  return service;
}

export type BenefitService = ReturnType<typeof createBenefitService>;

export interface BenefitExportFile {
  document: ExportDocument;
  format: BenefitExportQuery['format'];
  fileName: string;
}
