import { z } from '../../lib/validation';
import type { TripType } from '../trips/model';
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
  .preprocess((value) => (Array.isArray(value) ? value.join(',') : value), z.string().trim().max(60_000))
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
