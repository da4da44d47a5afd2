import type { BenefitCountry, BenefitPowertrain, BenefitVehicleClass, SeValuationModel } from './model';

/**
 * Car benefit value, employer contributions and mileage allowance for Sweden, Norway and the UK (domain.md §2, §3, §5).
 * Pure functions: every amount and rate of a year comes from `Params` (the `benefit_parameters` table, which an
 * operator can correct); only the shape of each rule is code. Amounts are unrounded; the report rounds to the cent.
 */

/** The value of one parameter of one country and year; throws `MissingBenefitParameter` when there is none. */
export type Params = (key: string) => number;
/** Like `Params`, but undefined when the year has no such parameter (a rule that has ended). */
export type OptionalParams = (key: string) => number | undefined;

export class MissingBenefitParameter extends Error {
  constructor(
    readonly country: BenefitCountry,
    readonly year: number,
    readonly key: string,
  ) {
    super(`No benefit parameter ${key} for ${country} ${year}`);
  }
}

/** Days as YYYY-MM-DD compare as text. */
export function addYears(day: string, years: number): string {
  const year = Number(day.slice(0, 4)) + years;
  const rest = day.slice(4);
  // 29 Feb in a year without it becomes 1 Mar.
  if (rest === '-02-29' && !isLeapYear(year)) return `${year}-03-01`;
  return `${year}${rest}`;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(month: string): number {
  const year = Number(month.slice(0, 4));
  const index = Number(month.slice(5, 7));
  return new Date(Date.UTC(year, index, 0)).getUTCDate();
}

export function roundMoney(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}

// ---------------------------------------------------------------------------------------------
// Sweden: förmånsvärde (domain.md §2)
// ---------------------------------------------------------------------------------------------

export interface SeCar {
  listPrice: number;
  /** Extra equipment (an alcolock is not to be entered here). */
  extraEquipment: number;
  /** The day the car first became taxable in Sweden (YYYY-MM-DD). */
  firstTaxable: string;
  /** Yearly vehicle tax (vägtrafikskatt); counted by the models from 1 Jul 2018. */
  vehicleTax: number;
  powertrain: BenefitPowertrain;
}

export interface SeValuationResult {
  model: SeValuationModel;
  annual: number;
  parts: Array<{ key: string; amount: number }>;
  /** Nybilspris plus equipment, before the floor and the reduction. */
  basePrice: number;
  reduction: number;
  reductionCapped: boolean;
  priceUsed: number;
  sixYearRule: boolean;
}

/** The valuation model by the day the car first became taxable. */
export function seValuationModel(firstTaxable: string): SeValuationModel {
  if (firstTaxable >= '2021-07-01') return 'from2021';
  if (firstTaxable >= '2018-07-01') return 'from2018';
  return 'before2018';
}

/** Cars taxable from 1 Jul 2022 that are electric, hydrogen, plug-in hybrid or gas: the reduction's parameter key. */
const SE_REDUCTION_KEYS: Partial<Record<BenefitPowertrain, string>> = {
  electric: 'reduction.electric',
  hydrogen: 'reduction.hydrogen',
  plugInHybrid: 'reduction.plugInHybrid',
  gas: 'reduction.gas',
};

/**
 * The environmental-car reduction of nybilspriset, capped at `reductionCap` (50 %) of the price it reduces. Zero for
 * other cars, for cars taxable before 1 Jul 2022 and for years without the reduction's parameter (it is temporary).
 */
export function seEnvironmentalReduction(price: number, car: Pick<SeCar, 'powertrain' | 'firstTaxable'>, p: Params, optional: OptionalParams): { reduction: number; capped: boolean } {
  const key = SE_REDUCTION_KEYS[car.powertrain];
  if (!key || car.firstTaxable < '2022-07-01') return { reduction: 0, capped: false };
  const amount = optional(key);
  if (amount === undefined) return { reduction: 0, capped: false };
  const cap = p('reductionCap') * price;
  return amount > cap ? { reduction: cap, capped: true } : { reduction: amount, capped: false };
}

/**
 * Spec §1/domain.md §2: the annual benefit value of a car under the rules of the year of `onDay` (its PBB, SLR and
 * rates), in the valuation model of the day the car first became taxable. `onDay` also dates the 6-year rule: a car
 * that has been taxable for 6 years or more on that day is valued at no less than 4 × PBB, without its equipment.
 */
export function seAnnualBenefit(car: SeCar, p: Params, optional: OptionalParams, onDay: string): SeValuationResult {
  const model = seValuationModel(car.firstTaxable);
  const pbb = p('pbb');
  const slr = Math.max(p('slr'), p('slrFloor'));
  const basePrice = car.listPrice + car.extraEquipment;

  let price = basePrice;
  let sixYearRule = false;
  if (addYears(car.firstTaxable, p('oldCarYears')) <= onDay) {
    const floor = p('oldCarFloorPbb') * pbb;
    // The list price with its equipment against the floor; when the floor applies, nothing is added on top of it.
    if (basePrice < floor) {
      price = floor;
      sixYearRule = true;
    }
  }
  const { reduction, capped } = seEnvironmentalReduction(price, car, p, optional);
  price -= reduction;

  const parts: Array<{ key: string; amount: number }> = [];
  if (model === 'from2021') {
    parts.push({ key: 'basic', amount: p('basicShare') * pbb });
    parts.push({ key: 'interest', amount: price * (p('interestFactor2021') * slr + p('interestAddition2021')) });
    parts.push({ key: 'price', amount: p('pricePart2021') * price });
    parts.push({ key: 'vehicleTax', amount: car.vehicleTax });
  } else {
    const step = p('pricePartStepPbb') * pbb;
    parts.push({ key: 'basic', amount: (model === 'from2018' ? p('basicShare') : p('basicShareBefore2018')) * pbb });
    parts.push({ key: 'interest', amount: price * p('interestFactor2018') * slr });
    parts.push({ key: 'price', amount: p('pricePartLow') * Math.min(price, step) + p('pricePartHigh') * Math.max(0, price - step) });
    if (model === 'from2018') parts.push({ key: 'vehicleTax', amount: car.vehicleTax });
  }
  const annual = parts.reduce((sum, part) => sum + part.amount, 0);
  return { model, annual, parts, basePrice, reduction, reductionCapped: capped, priceUsed: price, sixYearRule };
}

/** Swedish mileage allowance (domain.md §3): own car per mil, or a benefit car whose fuel the employee pays. */
export function seMileage(kind: 'ownCar' | 'benefitCarFuel', km: number, paidPer10Km: number | null, powertrain: BenefitPowertrain, p: Params): Reimbursement {
  const mil = km / 10;
  const statutory = kind === 'ownCar' ? p('mileage.ownCar') : powertrain === 'electric' ? p('mileage.benefitElectric') : p('mileage.benefitFossil');
  const paid = (paidPer10Km ?? statutory) * mil;
  const taxFree = Math.min(paid, statutory * mil);
  return { paid, taxFree, taxable: paid - taxFree };
}

/**
 * Norway, a company car whose fuel the employee pays: the company's rate per 10 km for the business kilometres (nothing
 * without one), tax free up to `mileage.benefitCarFuelTaxFree` per km (no documented rate: 0 until confirmed).
 */
export function noBenefitCarFuel(km: number, paidPer10Km: number | null, p: Params): Reimbursement {
  const paid = ((paidPer10Km ?? 0) / 10) * km;
  const taxFree = Math.min(paid, p('mileage.benefitCarFuelTaxFree') * km);
  return { paid, taxFree, taxable: paid - taxFree };
}

export interface Reimbursement {
  paid: number;
  taxFree: number;
  taxable: number;
}

// ---------------------------------------------------------------------------------------------
// Norway: firmabil, standard rule (domain.md §5)
// ---------------------------------------------------------------------------------------------

export interface NoCar {
  listPrice: number;
  extraEquipment: number;
  /** First registration (YYYY-MM-DD). */
  firstRegistered: string;
  vehicleClass: BenefitVehicleClass;
  powertrain: BenefitPowertrain;
}

export interface NoValuationResult {
  annual: number;
  basePrice: number;
  baseFactor: number;
  ageReduced: boolean;
  kmReduced: boolean;
  /** Van deduction (50 % of the reduced price, capped) or the electric-car discount. */
  reduction: number;
  priceUsed: number;
}

/**
 * The annual benefit of income year `year`: 30 % of the list price (with equipment) up to the threshold and 20 % above.
 * The base is reduced to 75 % for a car that is 3 years or older on 1 January (Skatteetaten words this both as
 * "older than" and "3 years or older": taken here as registered on or before 1 January three years earlier) and to
 * 75 % when business driving exceeds 40 000 km in the year (not for vans); both give 56.25 %. A van's list price,
 * after the age reduction, is reduced by 50 % capped at 150 000 kr. Electric cars: the year's discount (none from 2023).
 */
export function noAnnualBenefit(car: NoCar, p: Params, year: number, businessKmInYear: number): NoValuationResult {
  const basePrice = car.listPrice + car.extraEquipment;
  const ageReduced = car.firstRegistered <= `${year - Number(p('ageYears'))}-01-01`;
  const kmReduced = car.vehicleClass === 'car' && businessKmInYear > p('businessKmLimit');
  const factor = (ageReduced ? p('ageReductionFactor') : 1) * (kmReduced ? p('businessKmFactor') : 1);
  let price = basePrice * factor;
  let reduction = 0;
  if (car.vehicleClass === 'van') {
    reduction = Math.min(price * p('vanReduction'), p('vanReductionCap'));
  } else if (car.powertrain === 'electric') {
    reduction = price * p('electricDiscount');
  }
  price -= reduction;
  const threshold = p('threshold');
  const annual = p('rateLow') * Math.min(price, threshold) + p('rateHigh') * Math.max(0, price - threshold);
  return { annual, basePrice, baseFactor: factor, ageReduced, kmReduced, reduction, priceUsed: price };
}

/** Norwegian kilometre allowance: the company's rate (default statens sats), tax free up to the trekkfri part. */
export function noMileage(km: number, paidPer10Km: number | null, p: Params): Reimbursement {
  const paid = paidPer10Km === null ? p('mileage.rate') * km : (paidPer10Km / 10) * km;
  const taxFree = Math.min(paid, p('mileage.taxFree') * km);
  return { paid, taxFree, taxable: paid - taxFree };
}

// ---------------------------------------------------------------------------------------------
// United Kingdom: benefit in kind, Class 1A NIC, AMAP (domain.md §5)
// ---------------------------------------------------------------------------------------------

export const KM_PER_MILE = 1.609344;

/**
 * The appropriate percentage of tax year `p` for a car's CO2 (g/km) and, at 1–50 g/km, its electric range in miles;
 * diesels that are not RDE2 compliant add the diesel supplement; never above the year's maximum. From 51 g/km: the
 * 51–54 g band's percentage, +1 point per 5 g from 55 g. From `ap.frozenFromG` the bands keep an earlier year's
 * percentages (`ap.frozen51`), never less than the band below.
 */
export function ukAppropriatePercentage(co2: number, rangeMiles: number | null, dieselSupplement: boolean, p: Params): number {
  let ap: number;
  if (co2 <= 0) ap = p('ap.zero');
  else if (co2 <= 50) {
    const range = rangeMiles ?? 0;
    ap = range >= 130 ? p('ap.range130') : range >= 70 ? p('ap.range70') : range >= 40 ? p('ap.range40') : range >= 30 ? p('ap.range30') : p('ap.rangeUnder30');
  } else {
    // One percentage point per started 5 g from 55 g.
    const steps = (g: number) => (g < 55 ? 0 : (Math.floor((g - 55) / 5) + 1) / 100);
    const frozenFrom = p('ap.frozenFromG');
    if (co2 < frozenFrom) ap = p('ap.51') + steps(co2);
    else ap = Math.max(p('ap.51') + steps(frozenFrom - 1), p('ap.frozen51') + steps(co2));
  }
  if (dieselSupplement) ap += p('dieselSupplement');
  // Whole percentage points: drop the float noise of the additions.
  return Math.min(Math.round(ap * 10_000) / 10_000, p('ap.max'));
}

export interface UkCar {
  listPrice: number;
  extraEquipment: number;
  capitalContribution: number;
  co2: number;
  electricRangeMiles: number | null;
  /** A diesel that is not RDE2 compliant. */
  dieselSupplement: boolean;
}

export interface UkValuationResult {
  annual: number;
  appropriatePercentage: number;
  contribution: number;
  priceUsed: number;
}

/** Cash equivalent for a full tax year: (P11D price + options − capital contribution up to £5,000) × AP. */
export function ukAnnualBenefit(car: UkCar, p: Params): UkValuationResult {
  const contribution = Math.min(car.capitalContribution, p('capitalContributionCap'));
  const priceUsed = Math.max(0, car.listPrice + car.extraEquipment - contribution);
  const appropriatePercentage = ukAppropriatePercentage(car.co2, car.electricRangeMiles, car.dieselSupplement, p);
  return { annual: priceUsed * appropriatePercentage, appropriatePercentage, contribution, priceUsed };
}

/** The UK tax year (its first calendar year) a day belongs to: 6 Apr – 5 Apr. */
export function ukTaxYear(day: string): number {
  const year = Number(day.slice(0, 4));
  return day.slice(5) >= '04-06' ? year : year - 1;
}

export function ukTaxYearStart(taxYear: number): string {
  return `${taxYear}-04-06`;
}

export function daysInUkTaxYear(taxYear: number): number {
  return isLeapYear(taxYear + 1) ? 366 : 365;
}

/**
 * AMAP for `miles` business miles in a car or van of the employee's own, when `milesBefore` were already driven in the
 * tax year: the first rate up to the threshold (10 000 miles across all the employee's cars), the second above it.
 */
export function amap(milesBefore: number, miles: number, p: Params): number {
  const first = Math.max(0, Math.min(miles, p('amap.threshold') - milesBefore));
  return first * p('amap.first') + (miles - first) * p('amap.after');
}

/** UK own-car reimbursement: what the company pays (its rate per 10 km, else AMAP) against the AMAP tax-free amount. */
export function ukMileage(milesBefore: number, km: number, paidPer10Km: number | null, p: Params): Reimbursement {
  const miles = km / KM_PER_MILE;
  const taxFreeLimit = amap(milesBefore, miles, p);
  const paid = paidPer10Km === null ? taxFreeLimit : (paidPer10Km / 10) * km;
  const taxFree = Math.min(paid, taxFreeLimit);
  return { paid, taxFree, taxable: paid - taxFree };
}

/**
 * The UK advisory fuel rate per mile (domain.md §5) of a company car by fuel and engine size: petrol and diesel in three
 * bands (`afr.<fuel>.smallMaxCc`, `mediumMaxCc`), electricity one rate. Without an engine size the smallest band (the
 * lowest tax-free amount). Null for a fuel without an advisory rate here (gas, other).
 */
export function ukAdvisoryFuelRate(fuelType: string | null, engineCc: number | null, p: Params): number | null {
  if (fuelType === 'electricity') return p('afr.electricity');
  if (fuelType !== 'petrol' && fuelType !== 'diesel') return null;
  if (engineCc === null || engineCc <= p(`afr.${fuelType}.smallMaxCc`)) return p(`afr.${fuelType}.small`);
  if (engineCc <= p(`afr.${fuelType}.mediumMaxCc`)) return p(`afr.${fuelType}.medium`);
  return p(`afr.${fuelType}.large`);
}

/**
 * UK, a company car whose fuel the employee pays: the company's rate per 10 km (else the advisory fuel rate) for the
 * business miles, tax free up to the advisory fuel rate.
 */
export function ukBenefitCarFuel(km: number, paidPer10Km: number | null, ratePerMile: number): Reimbursement {
  const taxFreeLimit = (km / KM_PER_MILE) * ratePerMile;
  const paid = paidPer10Km === null ? taxFreeLimit : (paidPer10Km / 10) * km;
  const taxFree = Math.min(paid, taxFreeLimit);
  return { paid, taxFree, taxable: paid - taxFree };
}

// ---------------------------------------------------------------------------------------------
// Months and employer contributions
// ---------------------------------------------------------------------------------------------

/** The months (YYYY-MM) from the month of `from` through the month of `to`. */
export function monthsBetween(from: string, to: string): string[] {
  const out: string[] = [];
  let year = Number(from.slice(0, 4));
  let month = Number(from.slice(5, 7));
  const last = to.slice(0, 7);
  for (;;) {
    const key = `${year}-${String(month).padStart(2, '0')}`;
    if (key > last) break;
    out.push(key);
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
  return out;
}

/** Days of `month` within [availableFrom, availableUntil] (both inclusive; null: open). */
export function availableDays(month: string, availableFrom: string | null, availableUntil: string | null): number {
  const first = `${month}-01`;
  const last = `${month}-${String(daysInMonth(month)).padStart(2, '0')}`;
  const start = availableFrom && availableFrom > first ? availableFrom : first;
  const end = availableUntil && availableUntil < last ? availableUntil : last;
  if (end < start) return 0;
  return Number(end.slice(8, 10)) - Number(start.slice(8, 10)) + 1;
}

/** Employer contributions on a benefit value: the basis is the value itself. */
export function employerContributions(basis: number, rate: number): number {
  return basis * rate;
}

export type SeContributionCategory = 'standard' | 'older' | 'youth';

export interface SeContributions {
  category: SeContributionCategory;
  /** The rate of the category (the youth rate applies up to the pay cap, the standard rate above it). */
  rate: number;
  amount: number;
}

/**
 * Swedish employer contributions on one month's benefit value (domain.md §2): the standard rate, the reduced rate for
 * people born in the years `employerContribution.olderBornFrom`–`olderBornTo`, or the temporary youth rate for those
 * born `youthBornFrom`–`youthBornTo` in the months `youthFromMonth`–`youthUntilMonth` of a year that has it, on pay up to
 * `youthPayCap` a month (only the benefit value of the month is known here: the part of it above the cap pays the
 * standard rate). Without a birth year: the standard rate.
 */
export function seEmployerContributions(monthlyValue: number, month: string, birthYear: number | null, p: Params, optional: OptionalParams): SeContributions {
  const standard = p('employerContributionRate');
  if (birthYear !== null) {
    const olderFrom = optional('employerContribution.olderBornFrom');
    const olderTo = optional('employerContribution.olderBornTo');
    const olderRate = optional('employerContribution.olderRate');
    if (olderFrom !== undefined && olderTo !== undefined && olderRate !== undefined && birthYear >= olderFrom && birthYear <= olderTo) {
      return { category: 'older', rate: olderRate, amount: monthlyValue * olderRate };
    }
    const youthRate = optional('employerContribution.youthRate');
    const bornFrom = optional('employerContribution.youthBornFrom');
    const bornTo = optional('employerContribution.youthBornTo');
    const fromMonth = optional('employerContribution.youthFromMonth');
    const untilMonth = optional('employerContribution.youthUntilMonth');
    const m = Number(month.slice(5, 7));
    if (
      youthRate !== undefined &&
      bornFrom !== undefined &&
      bornTo !== undefined &&
      fromMonth !== undefined &&
      untilMonth !== undefined &&
      birthYear >= bornFrom &&
      birthYear <= bornTo &&
      m >= fromMonth &&
      m <= untilMonth
    ) {
      const cap = optional('employerContribution.youthPayCap') ?? Number.POSITIVE_INFINITY;
      const reduced = Math.min(monthlyValue, cap);
      return { category: 'youth', rate: youthRate, amount: reduced * youthRate + (monthlyValue - reduced) * standard };
    }
  }
  return { category: 'standard', rate: standard, amount: monthlyValue * standard };
}
