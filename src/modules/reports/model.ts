import { joinQueryValue, z } from '../../lib/validation';
import type { TripType } from '../trips/model';
import type { FuelType } from '../accounts/model';
import type { City, ExemptReason, Zone } from './congestion';

/**
 * Reports: schemas and wire types. Shared with the web app: no server-only imports here (the imports above
 * other than `z` are types and disappear in the bundle).
 */

/** Spec §5: a report covers at most 12 months. */
export const REPORT_MAX_MONTHS = 12;
/** The congestion tax is set by Swedish local time, so its days are Swedish days. */
export const CONGESTION_TIME_ZONE = 'Europe/Stockholm';

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
export function isReportDate(value: string): boolean {
  if (!DATE_PATTERN.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}
const reportDate = z.string().trim().min(1, { abort: true }).refine(isReportDate, 'validation.dateRange.format');

export const congestionQuerySchema = z.object({
  unitId: z.string().trim().min(1, { abort: true }).pipe(z.coerce.number<string>().int().positive().max(2_147_483_647)),
  /** First day (YYYY-MM-DD, Swedish time); default: the first day of this month. */
  from: reportDate.optional(),
  /** Last day, inclusive (YYYY-MM-DD); default: the last day of the month of `from` (or of this month). */
  to: reportDate.optional(),
});
export type CongestionQuery = z.output<typeof congestionQuerySchema>;

export interface CongestionPassage {
  /** Instant of the passage (ISO, UTC), and its Swedish local time HH:MM (what the tariff reads). */
  time: string;
  localTime: string;
  city: City;
  zone: Zone;
  station: string;
  controlPoint: string;
  /** Tariff amount at that time (SEK) and what the passage costs after the day rules, the single-charge rule and the daily maximum. */
  tariff: number;
  amount: number;
  /** Why it costs less than the tariff, or null. */
  reason: ExemptReason | null;
  /** The trip the passage belongs to (null: outside any detected trip). */
  tripId: number | null;
  tripType: TripType | null;
  /** On a private trip: a benefit-car user sees which passages were business. */
  private: boolean;
}

export interface CongestionCityDay {
  city: City;
  total: number;
  /** Daily maximum that applied, and whether it cut the day. */
  cap: number;
  capped: boolean;
}

export interface CongestionDay {
  /** Swedish calendar day. */
  date: string;
  total: number;
  cities: CongestionCityDay[];
  passages: CongestionPassage[];
}

export interface CongestionTripTotal {
  tripId: number;
  type: TripType;
  startTime: string;
  stopTime: string;
  passages: number;
  amount: number;
}

export interface CongestionReport {
  unitId: number;
  unitName: string;
  /** The period read: days, both inclusive, in `timeZone`. */
  from: string;
  to: string;
  timeZone: string;
  /** Days with at least one passage, in order. */
  days: CongestionDay[];
  /** Trips with passages, in order. */
  trips: CongestionTripTotal[];
  /** Amount (SEK) of the period, and split by the type of the trip (none: outside detected trips). */
  total: number;
  totals: Record<TripType | 'none', number>;
  passageCount: number;
}


// ---- report query ----

/** The fleet reports of spec §1 beside the congestion tax (benefit value has its own section below). */
export const REPORT_KINDS = ['summary', 'eco', 'fuel', 'co2', 'environment'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
/** Every report is exported through the export kit in these formats (`?format=`); without one the answer is JSON. */
export const REPORT_FORMATS = ['pdf', 'xlsx', 'csv'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
/** Rows per vehicle or per driver (the trip's driver; trips without one are grouped under "no driver", key 0). */
export const REPORT_GROUPINGS = ['vehicle', 'driver'] as const;
export type ReportGrouping = (typeof REPORT_GROUPINGS)[number];
/** Days of a report are the account's local days in this zone unless the request names another (X-Timezone). */
export const REPORT_TIME_ZONE = 'Europe/Stockholm';
/** A selection of at most this many units by id. */
export const REPORT_MAX_UNITS = 5000;

const positiveId = z.number().int().positive().max(2_147_483_647);
const positiveIdText = z.coerce.number<string>().int().positive().max(2_147_483_647);

/** `unitIds` in a query string: `1,2,3` (or repeated `unitIds=1&unitIds=2`). */
const idList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value.join(',') : value).split(',').map((part) => part.trim()).filter((part) => part !== ''))
  .pipe(z.array(positiveIdText).max(REPORT_MAX_UNITS));

/**
 * Which vehicles a report covers: the given units, a department's units, one driver's trips, or (none of these)
 * the caller's whole fleet as the caller sees it (spec §6). Combinations narrow: units ∩ department, driver's trips in those.
 */
export const reportScopeSchema = z.object({
  unitIds: z.array(positiveId).max(REPORT_MAX_UNITS).optional(),
  departmentId: positiveId.optional(),
  driverId: positiveId.optional(),
  groupBy: z.enum(REPORT_GROUPINGS).default('vehicle'),
});
export type ReportScope = z.output<typeof reportScopeSchema>;

/** `GET /api/reports/{summary,eco,fuel,co2,environment}`: the scope, a period of days (at most 12 months, §5) and an export format. */
export const reportQuerySchema = z.object({
  unitIds: idList.optional(),
  departmentId: z.string().trim().min(1, { abort: true }).pipe(positiveIdText).optional(),
  driverId: z.string().trim().min(1, { abort: true }).pipe(positiveIdText).optional(),
  groupBy: z.enum(REPORT_GROUPINGS).default('vehicle'),
  /** First day (YYYY-MM-DD, local); default: the first day of this month (environment: of this year). */
  from: reportDate.optional(),
  /** Last day, inclusive; default: the end of the month of `from` (environment: of its year). At most 12 months. */
  to: reportDate.optional(),
  format: z.enum(REPORT_FORMATS).optional(),
});
export type ReportQuery = z.output<typeof reportQuerySchema>;

/** What every report answers about what it read. */
export interface ReportHeader {
  kind: ReportKind;
  /** Days, both inclusive, in `timeZone`. */
  from: string;
  to: string;
  timeZone: string;
  groupBy: ReportGrouping;
  /** The units the report covers (after scope and §6), by id and name. */
  units: Array<{ id: number; name: string }>;
  /** Locked benefit/private cars in the scope the caller has no access to: left out of this report (§6). */
  excludedLockedUnits: number;
  /** When the report was made (ISO). */
  generatedAt: string;
}

/** A row's key: a unit id (groupBy vehicle) or a driver's user id (groupBy driver; 0 = no driver known). */
export interface ReportRowKey {
  key: number;
  name: string;
  department: { id: number; name: string } | null;
}

// ---- summary ----

export interface SummaryFigures {
  trips: number;
  distanceKm: number;
  /** Distance per trip type (km). */
  distanceByType: Record<TripType, number>;
  /** Seconds between start and stop of the trips. */
  drivingS: number;
  /** Seconds with the engine on while standing (ignition on, speed under 5 km/h), from the stored positions. */
  idleS: number;
  /** Stops: each trip ends in one. */
  stops: number;
  /** Distance over driving time (km/h); top speed reported in any trip. */
  avgSpeedKmh: number;
  maxSpeedKmh: number;
}

export interface SummaryRow extends ReportRowKey, SummaryFigures {}

/** One row per vehicle (or driver) and local day it drove: first start and last stop of the day. */
export interface SummaryDay {
  date: string;
  key: number;
  name: string;
  firstStart: string;
  lastStop: string;
  trips: number;
  distanceKm: number;
}

/** The summary's per-day rows are capped (a year of a fleet has hundreds of thousands); the totals cover every day. */
export const SUMMARY_DAY_LIMIT = 1000;

export interface SummaryReport extends ReportHeader {
  kind: 'summary';
  rows: SummaryRow[];
  /** First start and last stop per day, in date order: at most `SUMMARY_DAY_LIMIT` of the `daysTotal` rows. */
  days: SummaryDay[];
  daysTotal: number;
  /** Totals per department (null id: units without a department) and for the fleet (everything in the report). */
  departments: Array<{ id: number | null; name: string } & SummaryFigures>;
  fleet: SummaryFigures;
  /** Chart: distance per day of the period (every day, zero when nothing was driven), split by trip type. */
  distancePerDay: Array<{ date: string; distanceKm: number } & Record<TripType, number>>;
}

// ---- eco ----

/** Feature profile's green-driving sensitivity (spec §3) choosing the thresholds (domain.md §6). */
export const ECO_SENSITIVITIES = ['sensitive', 'normal', 'insensitive'] as const;
export type EcoSensitivity = (typeof ECO_SENSITIVITIES)[number];

/** What a score is made of: start at 100, deduct per category up to its cap (domain.md §6, Digital Matter's scorecard). */
export interface EcoScoreParts {
  /** Events per 100 km. */
  accelerationPer100Km: number;
  brakingPer100Km: number;
  corneringPer100Km: number;
  /** Share (0–1) of driving time over the profile's speed threshold, and of engine-on time spent idling. */
  overspeedShare: number;
  idleShare: number;
  /** Points deducted per category (each at most its cap). */
  deductions: { acceleration: number; braking: number; cornering: number; speeding: number; idling: number };
  /** 0–100, 100 is best. */
  score: number;
}

export interface EcoFigures extends EcoScoreParts {
  trips: number;
  distanceKm: number;
  drivingS: number;
  idleS: number;
  overspeedS: number;
  harshAcceleration: number;
  harshBraking: number;
  harshCornering: number;
}

export interface EcoRow extends ReportRowKey, EcoFigures {
  /** 1 = best score in the report (ranking). */
  rank: number;
  sensitivity: EcoSensitivity;
  overspeedKmh: number;
}

export interface EcoTrip {
  tripId: number;
  unitId: number;
  unitName: string;
  driverUserId: number | null;
  driverName: string | null;
  startTime: string;
  stopTime: string;
  distanceKm: number;
  harshAcceleration: number;
  harshBraking: number;
  harshCornering: number;
  overspeedS: number;
  idleS: number;
  score: number;
}

export interface EcoReport extends ReportHeader {
  kind: 'eco';
  /** Ranking: best score first. */
  rows: EcoRow[];
  /** Trips with their scores, newest first; at most `ECO_TRIP_LIMIT` (then `tripsTruncated`). */
  trips: EcoTrip[];
  tripsTruncated: boolean;
  fleet: EcoFigures;
  /** Chart: score per ISO week (Monday's date) of the period. */
  trend: Array<{ week: string; score: number; distanceKm: number; trips: number }>;
  /** The thresholds each sensitivity used (events per 100 km at which a category's whole cap is deducted). */
  thresholds: Record<EcoSensitivity, EcoThresholds>;
}
export const ECO_TRIP_LIMIT = 1000;

export interface EcoThresholds {
  /** Harsh events per 100 km that cost a category its whole cap. */
  accelerationPer100Km: number;
  brakingPer100Km: number;
  corneringPer100Km: number;
  /** Share of driving time over the speed threshold that costs the whole speeding cap. */
  overspeedShare: number;
  /** Share of engine-on time idling that costs the whole idling cap. */
  idleShare: number;
}

// ---- fuel ----

export type EnergyUnit = 'l' | 'kWh';

export interface FuelFigures {
  distanceKm: number;
  /** Litres (kWh for electricity) used: measured from the tracker's fuel level where it reports one, else consumption × distance. */
  quantity: number;
  /** Cost at the account's market fuel price (null: no price set for that fuel). */
  cost: number | null;
}

export interface FuelRow extends ReportRowKey, FuelFigures {
  fuelType: FuelType | null;
  energyUnit: EnergyUnit;
  /** The unit's consumption per 10 km (null: not set). */
  consumptionPer10Km: number | null;
  /** How `quantity` was found. */
  source: 'measured' | 'consumption' | 'none';
  /** Price per litre/kWh used, its currency and market. */
  price: number | null;
  currency: 'SEK' | 'NOK';
  refuels: number;
  refuelledQuantity: number;
}

/** A rise in the reported fuel level while standing (spec: refuel events). */
export interface RefuelEvent {
  unitId: number;
  unitName: string;
  time: string;
  before: number;
  after: number;
  added: number;
  energyUnit: EnergyUnit;
  lat: number | null;
  lon: number | null;
}

export interface FuelReport extends ReportHeader {
  kind: 'fuel';
  market: 'SE' | 'NO';
  currency: 'SEK' | 'NOK';
  rows: FuelRow[];
  /** Totals per fuel type (the chart "fuel per vehicle" reads `rows`). */
  fuelTypes: Array<{ fuelType: FuelType | null; energyUnit: EnergyUnit } & FuelFigures>;
  refuels: RefuelEvent[];
  /** Chart: quantity and cost per month. */
  months: Array<{ month: string; quantity: number; cost: number }>;
}

// ---- co2 ----

/** Which emission factor (domain.md §6): tank-to-wheel fossil, tank-to-wheel of the blend sold, or well-to-wheel. */
export const CO2_BASES = ['ttw-fossil', 'ttw-blend', 'wtw'] as const;
export type Co2Basis = (typeof CO2_BASES)[number];

export interface Co2Factor {
  fuelType: FuelType;
  country: string;
  year: number;
  /** kg CO2 per litre (kWh for electricity). */
  kgPerUnit: number;
  energyUnit: EnergyUnit;
  basis: Co2Basis;
  source: string;
  /** False for a value no primary source was found for (domain.md's open items): to be confirmed by the operator. */
  verified: boolean;
}

export interface Co2Row extends ReportRowKey {
  distanceKm: number;
  fuelType: FuelType | null;
  /** From the unit's g/km, else fuel × factor, else nothing known. */
  method: 'gPerKm' | 'fuelFactor' | 'none';
  gPerKm: number | null;
  fuelQuantity: number | null;
  factor: Co2Factor | null;
  co2Kg: number;
}

export interface Co2Report extends ReportHeader {
  kind: 'co2';
  rows: Co2Row[];
  departments: Array<{ id: number | null; name: string; distanceKm: number; co2Kg: number }>;
  /** Chart: per month (YYYY-MM). */
  months: Array<{ month: string; distanceKm: number; co2Kg: number }>;
  totalKg: number;
  /** The factors the report used. */
  factors: Co2Factor[];
}

// ---- environment ----

export interface EnvironmentGroup {
  fuelType: FuelType | null;
  vehicleType: string;
  vehicles: number;
  distanceKm: number;
  energy: number;
  energyUnit: EnergyUnit;
  co2Kg: number;
}

export interface EnvironmentPeriod {
  from: string;
  to: string;
  distanceKm: number;
  electricDistanceKm: number;
  /** Electric share of distance (0–1). */
  electricShare: number;
  co2Kg: number;
  groups: EnvironmentGroup[];
}

export interface EnvironmentReport extends ReportHeader {
  kind: 'environment';
  current: EnvironmentPeriod;
  /** The same days a year earlier. */
  previous: EnvironmentPeriod;
  /** Current minus previous (electric share in percentage points × 0.01). */
  change: { distanceKm: number; co2Kg: number; electricShare: number };
  factors: Co2Factor[];
}

export type FleetReport = SummaryReport | EcoReport | FuelReport | Co2Report | EnvironmentReport;

// ---- schedules ----

export const SCHEDULE_FREQUENCIES = ['weekly', 'monthly'] as const;
export type ScheduleFrequency = (typeof SCHEDULE_FREQUENCIES)[number];
export const SCHEDULE_NAME_MAX = 100;
export const SCHEDULE_MAX_RECIPIENTS = 20;

/**
 * `POST /api/reports/schedules`, `PUT /api/reports/schedules/:id`: a report sent by e-mail as an attachment, weekly
 * (Monday, covering the week before) or monthly (the 1st, covering the month before), to account users and/or addresses.
 */
/** What can be scheduled: every fleet report and the benefit value and reimbursement report. */
export const SCHEDULE_KINDS = [...REPORT_KINDS, 'benefit'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

export const scheduleInputSchema = z
  .object({
    name: z.string().trim().min(1).max(SCHEDULE_NAME_MAX),
    kind: z.enum(SCHEDULE_KINDS),
    scope: reportScopeSchema,
    frequency: z.enum(SCHEDULE_FREQUENCIES),
    format: z.enum(REPORT_FORMATS),
    recipientUserIds: z.array(positiveId).max(SCHEDULE_MAX_RECIPIENTS).default([]),
    recipientEmails: z.array(z.string().trim().toLowerCase().pipe(z.email())).max(SCHEDULE_MAX_RECIPIENTS).default([]),
    active: z.boolean().default(true),
  })
  .superRefine((value, context) => {
    if (value.recipientUserIds.length + value.recipientEmails.length === 0)
      context.addIssue({ code: 'custom', path: ['recipientEmails'], message: 'reports.schedule.noRecipients' });
  });
export type ScheduleInput = z.output<typeof scheduleInputSchema>;

export interface ReportSchedule {
  id: number;
  name: string;
  kind: ScheduleKind;
  scope: ReportScope;
  frequency: ScheduleFrequency;
  format: ReportFormat;
  recipientUserIds: number[];
  recipientEmails: string[];
  active: boolean;
  /** Who made it (schedules run with this user's view of the fleet). */
  createdBy: { id: number; name: string };
  /** Next due time and the last run (ISO); the last run's error key, if it failed. */
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastError: string | null;
  createdAt: string;
}

export interface ReportScheduleList {
  schedules: ReportSchedule[];
}

// ---- Benefit value and reimbursement ----
// Spec §1 "car benefit and reimbursement", §3 Unit/Benefit, §5 (at most 12 months; reimbursement > 0; consumption and
// CO2 required for benefit cars), §6 (a locked benefit/private car without access: benefit value only);
// domain.md §2, §3, §5. Amounts are in the currency of the car's country (SEK, NOK, GBP), rounded to the cent.

/** The tax rules a car is valued under: from the car's own setting, else the account's country. */
export const BENEFIT_COUNTRIES = ['SE', 'NO', 'GB'] as const;
export type BenefitCountry = (typeof BENEFIT_COUNTRIES)[number];
export const BENEFIT_CURRENCY: Record<BenefitCountry, 'SEK' | 'NOK' | 'GBP'> = { SE: 'SEK', NO: 'NOK', GB: 'GBP' };

/** What drives the car: sets the Swedish environmental reduction and the UK appropriate percentage. */
export const BENEFIT_POWERTRAINS = ['combustion', 'hybrid', 'plugInHybrid', 'electric', 'hydrogen', 'gas', 'ethanol'] as const;
export type BenefitPowertrain = (typeof BENEFIT_POWERTRAINS)[number];

/** Norway: a van (varebil klasse 2) or light truck is valued at half its list price (capped); UK vans are not cars. */
export const BENEFIT_VEHICLE_CLASSES = ['car', 'van'] as const;
export type BenefitVehicleClass = (typeof BENEFIT_VEHICLE_CLASSES)[number];

/** Sweden's three valuation models, by the date the car first became taxable (domain.md §2). */
export const SE_VALUATION_MODELS = ['from2021', 'from2018', 'before2018'] as const;
export type SeValuationModel = (typeof SE_VALUATION_MODELS)[number];

export const BENEFIT_GROUPINGS = ['vehicle', 'driver'] as const;
export type BenefitGrouping = (typeof BENEFIT_GROUPINGS)[number];

const benefitId = () => z.string().trim().min(1, { abort: true }).pipe(z.coerce.number<string>().int().positive().max(2_147_483_647));
/** Comma-separated unit ids (query string; the same name repeated, or split by the server, arrives as an array), at most 5 000. */
const benefitIdList = z
  .preprocess(joinQueryValue, z.string().trim().max(60_000))
  .transform((value, context) => {
    const ids = value.split(',').map((part) => part.trim()).filter((part) => part.length > 0).map(Number);
    if (ids.length > 5_000 || ids.some((id) => !Number.isInteger(id) || id <= 0 || id > 2_147_483_647)) {
      context.addIssue({ code: 'custom', message: 'reports.benefit.unitIds' });
      return z.NEVER;
    }
    return [...new Set(ids)];
  });

/**
 * `GET /api/reports/benefit`: one vehicle (`unitIds=7`), several (`unitIds=7,8`) or the fleet (none), narrowed to a
 * department or to the cars a driver drove or holds; whole months from `from` to `to` (at most 12; default: this year
 * so far). `groupBy=driver` sums the reimbursements per driver instead of per vehicle.
 */
export const benefitQuerySchema = z.object({
  unitIds: benefitIdList.optional(),
  departmentId: benefitId().optional(),
  driverId: benefitId().optional(),
  /** First day (YYYY-MM-DD); the report covers whole months, from the month of `from`. */
  from: reportDate.optional(),
  /** Last day, inclusive (YYYY-MM-DD): through the end of its month. */
  to: reportDate.optional(),
  groupBy: z.enum(BENEFIT_GROUPINGS).default('vehicle'),
});
export type BenefitQuery = z.output<typeof benefitQuerySchema>;

/** `GET /api/reports/benefit/export?format=pdf|xlsx|csv` (same filters). */
export const benefitExportQuerySchema = benefitQuerySchema.extend({
  format: z.enum(['pdf', 'xlsx', 'csv']).default('pdf'),
  lang: z.enum(['sv', 'en', 'no']).optional(),
});
export type BenefitExportQuery = z.output<typeof benefitExportQuerySchema>;

/** `GET|PUT /api/reports/benefit/cars/:unitId`: what valuing a car needs beyond the unit's own fields. */
export const benefitCarParamsSchema = z.object({ unitId: benefitId() });

const money = (max = 100_000_000) => z.number().min(0, 'reports.benefit.amount').max(max);
const benefitDate = z.string().trim().refine(isReportDate, 'validation.dateRange.format');
export const benefitCarSchema = z.object({
  /** null: the account's country. */
  country: z.enum(BENEFIT_COUNTRIES).nullable().default(null),
  powertrain: z.enum(BENEFIT_POWERTRAINS).default('combustion'),
  vehicleClass: z.enum(BENEFIT_VEHICLE_CLASSES).default('car'),
  /** Nybilspris / listepris / P11D price, in the country's currency. */
  listPrice: money().nullable().default(null),
  /** Extra equipment (not an alcolock in Sweden), added to the list price. */
  extraEquipment: money().default(0),
  /** Sweden: the date the car first became taxable (chooses the valuation model and the reduction); Norway/UK: first registration. */
  firstRegistered: benefitDate.nullable().default(null),
  /** Sweden: the yearly vehicle tax (vägtrafikskatt). */
  vehicleTax: money(1_000_000).default(0),
  /** UK: electric range in miles (1–50 g/km cars), RDE2 compliance of a diesel, the employee's capital contribution. */
  electricRangeMiles: z.number().int().min(0).max(2_000).nullable().default(null),
  dieselRde2: z.boolean().default(false),
  capitalContribution: money().default(0),
  /** The driver (user of the account) who has the benefit; null: whoever drives it. */
  holderUserId: z.number().int().positive().max(2_147_483_647).nullable().default(null),
  /** The months the car is available to the holder: from / until (inclusive days); null: open. */
  availableFrom: benefitDate.nullable().default(null),
  availableUntil: benefitDate.nullable().default(null),
  /** Sweden: the holder's birth year, which chooses the employer-contribution rate (older or young employees). */
  holderBirthYear: z.number().int().min(1900).max(2100).nullable().default(null),
  /** UK: the engine size in cc, which chooses the advisory fuel rate's band. */
  engineCc: z.number().int().min(1).max(20_000).nullable().default(null),
});
export type BenefitCarInput = z.output<typeof benefitCarSchema>;

export interface BenefitCarView extends BenefitCarInput {
  unitId: number;
  /** The country used (the car's own, else the account's). */
  effectiveCountry: BenefitCountry;
  updatedAt: string | null;
}

/** One parameter a report used: its value, where it comes from and whether it has been checked against a primary source. */
export interface BenefitParameterUsed {
  country: BenefitCountry;
  /** Calendar year (SE, NO) or the first year of the tax year (UK 2025 = 6 Apr 2025 – 5 Apr 2026). */
  year: number;
  key: string;
  value: number;
  verified: boolean;
  source: string;
}

/** A car's value in one calendar month (Sweden, Norway) or tax-year month (UK: by days). */
export interface BenefitMonth {
  /** YYYY-MM. */
  month: string;
  /** Whole months count (SE, NO: a started month counts); UK: the share of the month's days available. */
  share: number;
  value: number;
  /** The annual value of the rules of that month's year. */
  annualValue: number;
}

/** How the annual value was reached (the parts are in the car's currency). */
export interface BenefitValuation {
  country: BenefitCountry;
  /** SE: from2021 | from2018 | before2018; NO: standard | van; GB: p11d. */
  model: string;
  listPrice: number;
  extraEquipment: number;
  /** SE: environmental-car reduction after its 50 % cap; GB: capital contribution; NO: van deduction. */
  reduction: number;
  reductionCapped: boolean;
  /** The price the percentages were applied to. */
  priceUsed: number;
  /** SE: the 4 × PBB floor of cars 6 years or older applied. */
  sixYearRule: boolean;
  /** NO: the base factor after the age and 40 000 km reductions (1, 0.75 or 0.5625). */
  baseFactor: number | null;
  /** GB: appropriate percentage (with the diesel supplement). */
  appropriatePercentage: number | null;
  /** SE: basic, interest and price parts and vehicle tax. */
  parts: Array<{ key: string; amount: number }>;
}

export interface BenefitCarRow {
  unitId: number;
  unitName: string;
  registrationNumber: string;
  carUsage: 'benefit' | 'private' | 'none';
  country: BenefitCountry;
  currency: 'SEK' | 'NOK' | 'GBP';
  holder: { id: number; name: string } | null;
  /** Spec §6: false for a locked car the caller has no access to; then only the benefit value is shown (no distances). */
  hasAccess: boolean;
  /** null when the car cannot be valued (see `problems`). */
  valuation: BenefitValuation | null;
  months: BenefitMonth[];
  /** Sum of the months. */
  benefitValue: number;
  /** Employer contributions on the benefit value (arbetsgivaravgift, arbeidsgiveravgift, Class 1A NIC). */
  employerContributionBasis: number;
  employerContributionRate: number;
  /** Sweden: which rate applied (the last month's): standard, older employees or the temporary youth rate. */
  employerContributionCategory: 'standard' | 'older' | 'youth';
  employerContributions: number;
  /** Distances from the trip log in the period, km; null without access. */
  distanceKm: { business: number; private: number; other: number } | null;
  /** Message keys: what is missing to value the car or pay its reimbursement (spec §5). */
  problems: string[];
}

/** A reimbursement: business driving in a private car, or in a benefit car whose fuel the driver pays. */
export interface BenefitReimbursementRow {
  /** Per vehicle: the unit; per driver: the driver (null: trips without a driver). */
  unitId: number | null;
  unitName: string | null;
  driverId: number | null;
  driverName: string | null;
  kind: 'ownCar' | 'benefitCarFuel';
  country: BenefitCountry;
  currency: 'SEK' | 'NOK' | 'GBP';
  businessKm: number;
  /** UK: business miles; with the miles earlier in the tax year that the 10 000-mile step counts. */
  businessMiles: number | null;
  milesBeforePeriod: number | null;
  /** What the company pays (the unit's reimbursement per 10 km; UK without one: AMAP). */
  paid: number;
  /** The tax-free part under the country's rates, and what is taxable (paid above it). */
  taxFree: number;
  taxable: number;
}

export interface BenefitCurrencyTotals {
  currency: 'SEK' | 'NOK' | 'GBP';
  benefitValue: number;
  employerContributionBasis: number;
  employerContributions: number;
  reimbursementPaid: number;
  reimbursementTaxFree: number;
  reimbursementTaxable: number;
}

export interface BenefitReport {
  /** The whole months read: first and last day (inclusive). */
  from: string;
  to: string;
  groupBy: BenefitGrouping;
  cars: BenefitCarRow[];
  reimbursements: BenefitReimbursementRow[];
  /** Every parameter the report used, with whether it is verified (domain.md's open items). */
  parameters: BenefitParameterUsed[];
  totals: BenefitCurrencyTotals[];
}
