import { describe, expect, test } from 'bun:test';
import {
  amap,
  availableDays,
  KM_PER_MILE,
  MissingBenefitParameter,
  monthsBetween,
  noAnnualBenefit,
  noBenefitCarFuel,
  noMileage,
  type OptionalParams,
  type Params,
  roundMoney,
  seAnnualBenefit,
  seEmployerContributions,
  seEnvironmentalReduction,
  seMileage,
  seValuationModel,
  ukAdvisoryFuelRate,
  ukAnnualBenefit,
  ukAppropriatePercentage,
  ukBenefitCarFuel,
  ukMileage,
  ukTaxYear,
} from './benefit-formulas';

/** Parameters as the migration seeds them (domain.md §2, §3, §5), one country and year at a time. */
const SE_RULES = {
  basicShare: 0.29,
  basicShareBefore2018: 0.317,
  interestFactor2021: 0.7,
  interestAddition2021: 0.01,
  interestFactor2018: 0.75,
  pricePart2021: 0.13,
  pricePartLow: 0.09,
  pricePartHigh: 0.2,
  pricePartStepPbb: 7.5,
  slrFloor: 0.005,
  oldCarYears: 6,
  oldCarFloorPbb: 4,
  reductionCap: 0.5,
  'reduction.electric': 350_000,
  'reduction.hydrogen': 350_000,
  'reduction.plugInHybrid': 140_000,
  'reduction.gas': 100_000,
  'mileage.ownCar': 25,
  'mileage.benefitFossil': 12,
  'mileage.benefitElectric': 9.5,
};
const SE_2024 = { ...SE_RULES, pbb: 57_300, slr: 0.0262 };
const SE_2025 = { ...SE_RULES, pbb: 58_800, slr: 0.0196 };
const NO_RULES = {
  rateLow: 0.3,
  rateHigh: 0.2,
  ageYears: 3,
  ageReductionFactor: 0.75,
  businessKmLimit: 40_000,
  businessKmFactor: 0.75,
  vanReduction: 0.5,
  vanReductionCap: 150_000,
  electricDiscount: 0,
  'mileage.taxFree': 3.5,
};
const NO_2025 = { ...NO_RULES, threshold: 362_300, 'mileage.rate': 5 };
const NO_2026 = { ...NO_RULES, threshold: 362_300, 'mileage.rate': 5.3 };
const GB_RULES = { dieselSupplement: 0.04, capitalContributionCap: 5000, 'amap.first': 0.45, 'amap.after': 0.25, 'amap.threshold': 10_000 };
const GB_2024 = {
  ...GB_RULES,
  'ap.zero': 0.02,
  'ap.range130': 0.02,
  'ap.range70': 0.05,
  'ap.range40': 0.08,
  'ap.range30': 0.12,
  'ap.rangeUnder30': 0.14,
  'ap.51': 0.15,
  'ap.max': 0.37,
  'ap.frozenFromG': 100_000,
  'ap.frozen51': 0.15,
};
const GB_2025 = { ...GB_2024, 'ap.zero': 0.03, 'ap.range130': 0.03, 'ap.range70': 0.06, 'ap.range40': 0.09, 'ap.range30': 0.13, 'ap.rangeUnder30': 0.15, 'ap.51': 0.16, 'ap.frozen51': 0.16 };
const GB_2026 = { ...GB_2025, 'ap.zero': 0.04, 'ap.51': 0.17, 'ap.frozenFromG': 75, 'ap.frozen51': 0.16 };

function params(values: Record<string, number>): { p: Params; optional: OptionalParams } {
  const optional: OptionalParams = (key) => values[key];
  const p: Params = (key) => {
    const value = values[key];
    if (value === undefined) throw new MissingBenefitParameter('SE', 0, key);
    return value;
  };
  return { p, optional };
}

describe('Sweden: förmånsvärde', () => {
  test("domain.md's worked example (2024): Kia EV6, nybilspris 639 900, reduction capped at 50 %: 67 637.88 kr a year, 5 636.49 a month", () => {
    const { p, optional } = params(SE_2024);
    const result = seAnnualBenefit({ listPrice: 639_900, extraEquipment: 0, firstTaxable: '2024-01-15', vehicleTax: 360, powertrain: 'electric' }, p, optional, '2024-01-01');
    expect(result.model).toBe('from2021');
    expect(result.reduction).toBe(319_950);
    expect(result.reductionCapped).toBe(true);
    expect(result.priceUsed).toBe(319_950);
    expect(roundMoney(result.parts.find((part) => part.key === 'basic')!.amount)).toBe(16_617);
    expect(roundMoney(result.parts.find((part) => part.key === 'price')!.amount)).toBe(41_593.5);
    expect(roundMoney(result.annual)).toBe(67_637.88);
    expect(roundMoney(result.annual / 12)).toBe(5_636.49);
  });

  test('the model follows the day the car first became taxable', () => {
    expect(seValuationModel('2021-07-01')).toBe('from2021');
    expect(seValuationModel('2021-06-30')).toBe('from2018');
    expect(seValuationModel('2018-07-01')).toBe('from2018');
    expect(seValuationModel('2018-06-30')).toBe('before2018');
  });

  test('model 1 Jul 2018 – 30 Jun 2021: 0.29 PBB, 0.75 × SLR, 9 % up to 7.5 PBB and 20 % above, vehicle tax; equipment added', () => {
    const { p, optional } = params(SE_2025);
    const result = seAnnualBenefit({ listPrice: 500_000, extraEquipment: 20_000, firstTaxable: '2019-03-01', vehicleTax: 1_500, powertrain: 'combustion' }, p, optional, '2025-06-01');
    expect(result.model).toBe('from2018');
    // 17 052 + 520 000 × 0.75 × 1.96 % + (9 % × 441 000 + 20 % × 79 000) + 1 500; over 4 PBB, so 6 years change nothing.
    expect(roundMoney(result.annual)).toBe(81_686);
    expect(result.sixYearRule).toBe(false);
    expect(result.reduction).toBe(0);
  });

  test('model before 1 Jul 2018: 0.317 PBB, no vehicle tax; the 6-year rule lifts the price to 4 PBB without the equipment', () => {
    const { p, optional } = params(SE_2025);
    const result = seAnnualBenefit({ listPrice: 180_000, extraEquipment: 30_000, firstTaxable: '2016-05-01', vehicleTax: 2_000, powertrain: 'combustion' }, p, optional, '2025-03-01');
    expect(result.model).toBe('before2018');
    expect(result.sixYearRule).toBe(true);
    expect(result.priceUsed).toBe(235_200);
    // 18 639.60 + 235 200 × 0.75 × 1.96 % + 9 % × 235 200
    expect(roundMoney(result.annual)).toBe(43_265.04);
    expect(result.parts.some((part) => part.key === 'vehicleTax')).toBe(false);
  });

  test('the 6-year rule does not apply to a younger car, and a price above 4 PBB keeps its equipment', () => {
    const { p, optional } = params(SE_2025);
    const young = seAnnualBenefit({ listPrice: 180_000, extraEquipment: 30_000, firstTaxable: '2020-05-01', vehicleTax: 0, powertrain: 'combustion' }, p, optional, '2025-03-01');
    expect(young.sixYearRule).toBe(false);
    expect(young.priceUsed).toBe(210_000);
  });

  test('model from 1 Jul 2021 with extra equipment and no reduction (petrol)', () => {
    const { p, optional } = params(SE_2025);
    const result = seAnnualBenefit({ listPrice: 400_000, extraEquipment: 25_000, firstTaxable: '2023-09-01', vehicleTax: 1_200, powertrain: 'combustion' }, p, optional, '2025-01-01');
    // 17 052 + 425 000 × (0.7 × 1.96 % + 1 %) + 13 % × 425 000 + 1 200 = 17 052 + 10 081 + 55 250 + 1 200
    expect(roundMoney(result.annual)).toBe(83_583);
  });

  test('environmental reductions: capped at 50 %, per car type, none before 1 Jul 2022 or for hybrids', () => {
    const { p, optional } = params(SE_2025);
    expect(seEnvironmentalReduction(250_000, { powertrain: 'plugInHybrid', firstTaxable: '2023-02-01' }, p, optional)).toEqual({ reduction: 125_000, capped: true });
    expect(seEnvironmentalReduction(300_000, { powertrain: 'gas', firstTaxable: '2023-02-01' }, p, optional)).toEqual({ reduction: 100_000, capped: false });
    expect(seEnvironmentalReduction(900_000, { powertrain: 'electric', firstTaxable: '2022-07-01' }, p, optional)).toEqual({ reduction: 350_000, capped: false });
    expect(seEnvironmentalReduction(900_000, { powertrain: 'hydrogen', firstTaxable: '2022-07-01' }, p, optional).reduction).toBe(350_000);
    expect(seEnvironmentalReduction(900_000, { powertrain: 'electric', firstTaxable: '2022-06-30' }, p, optional).reduction).toBe(0);
    expect(seEnvironmentalReduction(900_000, { powertrain: 'hybrid', firstTaxable: '2024-01-01' }, p, optional).reduction).toBe(0);
    expect(seEnvironmentalReduction(900_000, { powertrain: 'ethanol', firstTaxable: '2024-01-01' }, p, optional).reduction).toBe(0);
    // A year without the reduction's parameter (the reduction is temporary): none.
    const { 'reduction.electric': _ended, ...withoutReduction } = SE_2025;
    const ended = params(withoutReduction);
    expect(seEnvironmentalReduction(900_000, { powertrain: 'electric', firstTaxable: '2024-01-01' }, ended.p, ended.optional).reduction).toBe(0);
  });

  test('SLR below the floor counts as 0.5 %', () => {
    const { p, optional } = params({ ...SE_2025, slr: 0.001 });
    const result = seAnnualBenefit({ listPrice: 300_000, extraEquipment: 0, firstTaxable: '2023-01-01', vehicleTax: 0, powertrain: 'combustion' }, p, optional, '2025-01-01');
    expect(roundMoney(result.parts.find((part) => part.key === 'interest')!.amount)).toBe(roundMoney(300_000 * (0.7 * 0.005 + 0.01)));
  });

  test('a missing parameter is an error naming it, not a zero', () => {
    const { pbb: _pbb, ...withoutPbb } = SE_2025;
    const { p, optional } = params(withoutPbb);
    expect(() => seAnnualBenefit({ listPrice: 300_000, extraEquipment: 0, firstTaxable: '2023-01-01', vehicleTax: 0, powertrain: 'combustion' }, p, optional, '2025-01-01')).toThrow(MissingBenefitParameter);
  });

  test('mileage allowance: own car 25 kr/mil tax free, a higher rate is taxable above it; benefit cars 12 (fossil, plug-in) and 9.50 (electric)', () => {
    const { p } = params(SE_2025);
    expect(seMileage('ownCar', 150, 30, 'combustion', p)).toEqual({ paid: 450, taxFree: 375, taxable: 75 });
    expect(seMileage('ownCar', 150, null, 'combustion', p)).toEqual({ paid: 375, taxFree: 375, taxable: 0 });
    expect(seMileage('benefitCarFuel', 100, null, 'electric', p)).toEqual({ paid: 95, taxFree: 95, taxable: 0 });
    expect(seMileage('benefitCarFuel', 100, null, 'plugInHybrid', p)).toEqual({ paid: 120, taxFree: 120, taxable: 0 });
    expect(seMileage('benefitCarFuel', 100, 10, 'combustion', p)).toEqual({ paid: 100, taxFree: 100, taxable: 0 });
  });
});

describe('Norway: firmabil', () => {
  test('standard rule: 30 % up to the threshold and 20 % above (2025)', () => {
    const { p } = params(NO_2025);
    const result = noAnnualBenefit({ listPrice: 500_000, extraEquipment: 20_000, firstRegistered: '2024-03-01', vehicleClass: 'car', powertrain: 'combustion' }, p, 2025, 10_000);
    expect(result.baseFactor).toBe(1);
    expect(roundMoney(result.annual)).toBe(140_230);
  });

  test('age and 40 000 km reductions together: 56.25 % of the base', () => {
    const { p } = params(NO_2025);
    const result = noAnnualBenefit({ listPrice: 500_000, extraEquipment: 20_000, firstRegistered: '2020-05-01', vehicleClass: 'car', powertrain: 'combustion' }, p, 2025, 45_000);
    expect(result.ageReduced).toBe(true);
    expect(result.kmReduced).toBe(true);
    expect(result.baseFactor).toBe(0.5625);
    expect(roundMoney(result.annual)).toBe(87_750);
    // Exactly 40 000 km is not above the limit.
    expect(noAnnualBenefit({ listPrice: 500_000, extraEquipment: 20_000, firstRegistered: '2024-05-01', vehicleClass: 'car', powertrain: 'combustion' }, p, 2025, 40_000).kmReduced).toBe(false);
  });

  test('vans: the age reduction first, then 50 % off capped at 150 000; no 40 000 km reduction', () => {
    const { p } = params(NO_2025);
    const old = noAnnualBenefit({ listPrice: 400_000, extraEquipment: 0, firstRegistered: '2021-01-01', vehicleClass: 'van', powertrain: 'combustion' }, p, 2025, 50_000);
    expect(old.kmReduced).toBe(false);
    expect(old.reduction).toBe(150_000);
    expect(roundMoney(old.annual)).toBe(45_000);
    const expensive = noAnnualBenefit({ listPrice: 500_000, extraEquipment: 0, firstRegistered: '2025-01-10', vehicleClass: 'van', powertrain: 'combustion' }, p, 2025, 0);
    expect(expensive.reduction).toBe(150_000);
    expect(roundMoney(expensive.annual)).toBe(105_000);
  });

  test('electric cars have no discount from 2023', () => {
    const { p } = params(NO_2025);
    const electric = noAnnualBenefit({ listPrice: 500_000, extraEquipment: 0, firstRegistered: '2025-01-10', vehicleClass: 'car', powertrain: 'electric' }, p, 2025, 0);
    const petrol = noAnnualBenefit({ listPrice: 500_000, extraEquipment: 0, firstRegistered: '2025-01-10', vehicleClass: 'car', powertrain: 'combustion' }, p, 2025, 0);
    expect(electric.annual).toBe(petrol.annual);
  });

  test('kilometre allowance: statens sats 5.30 (2026), 3.50 of it tax free', () => {
    const { p } = params(NO_2026);
    const result = noMileage(100, null, p);
    expect(roundMoney(result.paid)).toBe(530);
    expect(roundMoney(result.taxFree)).toBe(350);
    expect(roundMoney(result.taxable)).toBe(180);
    // The company's own rate per 10 km below the tax-free limit: all tax free.
    expect(noMileage(100, 30, p)).toEqual({ paid: 300, taxFree: 300, taxable: 0 });
  });
});

describe('United Kingdom: benefit in kind and AMAP', () => {
  test('appropriate percentage by CO2 and electric range, per tax year', () => {
    const y24 = params(GB_2024).p;
    const y25 = params(GB_2025).p;
    expect(ukAppropriatePercentage(0, null, false, y25)).toBe(0.03);
    expect(ukAppropriatePercentage(0, null, false, y24)).toBe(0.02);
    expect(ukAppropriatePercentage(30, 140, false, y25)).toBe(0.03);
    expect(ukAppropriatePercentage(30, 80, false, y25)).toBe(0.06);
    expect(ukAppropriatePercentage(30, 50, false, y25)).toBe(0.09);
    expect(ukAppropriatePercentage(30, 35, false, y25)).toBe(0.13);
    expect(ukAppropriatePercentage(30, 10, false, y25)).toBe(0.15);
    expect(ukAppropriatePercentage(54, null, false, y25)).toBe(0.16);
    expect(ukAppropriatePercentage(55, null, false, y25)).toBeCloseTo(0.17, 10);
    expect(ukAppropriatePercentage(120, null, false, y25)).toBeCloseTo(0.3, 10);
    // 2024/25: 155–159 g is 36 %, 37 % from 160 g; 2025/26: 37 % from 155 g.
    expect(ukAppropriatePercentage(155, null, false, y24)).toBeCloseTo(0.36, 10);
    expect(ukAppropriatePercentage(160, null, false, y24)).toBe(0.37);
    expect(ukAppropriatePercentage(155, null, false, y25)).toBe(0.37);
  });

  test('bands frozen from 75 g never fall below the band before them', () => {
    const y26 = params(GB_2026).p;
    expect(ukAppropriatePercentage(74, null, false, y26)).toBeCloseTo(0.21, 10);
    expect(ukAppropriatePercentage(75, null, false, y26)).toBeCloseTo(0.21, 10);
    expect(ukAppropriatePercentage(100, null, false, y26)).toBeCloseTo(0.26, 10);
  });

  test('diesel supplement +4 points, never above the maximum', () => {
    const y25 = params(GB_2025).p;
    expect(ukAppropriatePercentage(120, null, true, y25)).toBeCloseTo(0.34, 10);
    expect(ukAppropriatePercentage(170, null, true, y25)).toBe(0.37);
  });

  test('BIK: (P11D + options − contribution up to £5,000) × AP; Class 1A NIC on it', () => {
    const { p } = params(GB_2025);
    const result = ukAnnualBenefit({ listPrice: 40_000, extraEquipment: 2_000, capitalContribution: 6_000, co2: 120, electricRangeMiles: null, dieselSupplement: false }, p);
    expect(result.contribution).toBe(5_000);
    expect(result.priceUsed).toBe(37_000);
    expect(roundMoney(result.annual)).toBe(11_100);
    expect(roundMoney(result.annual * 0.15)).toBe(1_665);
  });

  test('AMAP across the 10 000-mile step of the tax year', () => {
    const { p } = params(GB_2025);
    expect(roundMoney(amap(0, 500, p))).toBe(225);
    expect(roundMoney(amap(9_000, 2_000, p))).toBe(700);
    expect(roundMoney(amap(12_000, 2_000, p))).toBe(500);
    expect(roundMoney(amap(0, 10_000, p))).toBe(4_500);
    const trip = ukMileage(9_500, 1_000 * KM_PER_MILE, null, p);
    expect(roundMoney(trip.paid)).toBe(350);
    expect(roundMoney(trip.taxable)).toBe(0);
  });

  test('the tax year runs 6 April – 5 April', () => {
    expect(ukTaxYear('2025-04-05')).toBe(2024);
    expect(ukTaxYear('2025-04-06')).toBe(2025);
    expect(ukTaxYear('2026-01-31')).toBe(2025);
  });
});

describe('months', () => {
  test('whole months of a period and the days a car was available in each', () => {
    expect(monthsBetween('2025-11-15', '2026-02-01')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
    expect(availableDays('2025-02', null, null)).toBe(28);
    expect(availableDays('2024-02', '2024-02-10', null)).toBe(20);
    expect(availableDays('2025-03', null, '2025-03-05')).toBe(5);
    expect(availableDays('2025-03', '2025-04-01', null)).toBe(0);
  });
});

/** The employer-contribution and fuel-rate rows of migration 0462 (domain.md §2, §5). */
const SE_2026_CONTRIBUTIONS = {
  employerContributionRate: 0.3142,
  'employerContribution.olderRate': 0.1021,
  'employerContribution.olderBornFrom': 1938,
  'employerContribution.olderBornTo': 1958,
  'employerContribution.youthRate': 0.2081,
  'employerContribution.youthBornFrom': 2003,
  'employerContribution.youthBornTo': 2007,
  'employerContribution.youthFromMonth': 4,
  'employerContribution.youthUntilMonth': 12,
  'employerContribution.youthPayCap': 25_000,
};
const SE_2025_CONTRIBUTIONS = {
  employerContributionRate: 0.3142,
  'employerContribution.olderRate': 0.1021,
  'employerContribution.olderBornFrom': 1938,
  'employerContribution.olderBornTo': 1958,
};
const GB_2025_FUEL = {
  'afr.petrol.small': 0.12,
  'afr.petrol.medium': 0.14,
  'afr.petrol.large': 0.22,
  'afr.petrol.smallMaxCc': 1400,
  'afr.petrol.mediumMaxCc': 2000,
  'afr.diesel.small': 0.12,
  'afr.diesel.medium': 0.13,
  'afr.diesel.large': 0.18,
  'afr.diesel.smallMaxCc': 1600,
  'afr.diesel.mediumMaxCc': 2000,
  'afr.electricity': 0.08,
};

describe('Sweden: employer contributions at the special rates', () => {
  test('31.42 % as standard and without a birth year; 10.21 % for people born 1938–1958', () => {
    const { p, optional } = params(SE_2026_CONTRIBUTIONS);
    // domain.md's worked example: 5 636.49 a month.
    expect(seEmployerContributions(5_636.49, '2026-05', null, p, optional)).toMatchObject({ category: 'standard', rate: 0.3142 });
    expect(roundMoney(seEmployerContributions(5_636.49, '2026-05', null, p, optional).amount)).toBe(1_770.99);
    expect(seEmployerContributions(5_636.49, '2026-05', 1980, p, optional).category).toBe('standard');
    const older = seEmployerContributions(5_636.49, '2026-05', 1958, p, optional);
    expect(older).toMatchObject({ category: 'older', rate: 0.1021 });
    expect(roundMoney(older.amount)).toBe(575.49);
    expect(seEmployerContributions(5_636.49, '2026-05', 1938, p, optional).category).toBe('older');
    expect(seEmployerContributions(5_636.49, '2026-05', 1959, p, optional).category).toBe('standard');
    expect(seEmployerContributions(5_636.49, '2026-05', 1937, p, optional).category).toBe('standard');
  });

  test('the youth rate: born 2003–2007, only from April 2026, on pay up to 25 000 kr a month', () => {
    const { p, optional } = params(SE_2026_CONTRIBUTIONS);
    expect(seEmployerContributions(5_000, '2026-03', 2005, p, optional).category).toBe('standard');
    const april = seEmployerContributions(5_000, '2026-04', 2005, p, optional);
    expect(april).toMatchObject({ category: 'youth', rate: 0.2081 });
    expect(roundMoney(april.amount)).toBe(1_040.5);
    expect(seEmployerContributions(5_000, '2026-04', 2003, p, optional).category).toBe('youth');
    expect(seEmployerContributions(5_000, '2026-04', 2007, p, optional).category).toBe('youth');
    // Turned 23 before the year began; not yet 18 at its start.
    expect(seEmployerContributions(5_000, '2026-04', 2002, p, optional).category).toBe('standard');
    expect(seEmployerContributions(5_000, '2026-04', 2008, p, optional).category).toBe('standard');
    // Above the cap the standard rate: 25 000 × 20.81 % + 5 000 × 31.42 %.
    expect(roundMoney(seEmployerContributions(30_000, '2026-06', 2004, p, optional).amount)).toBe(6_773.5);
    // A year without the youth rate (2025): standard.
    const y2025 = params(SE_2025_CONTRIBUTIONS);
    expect(seEmployerContributions(5_000, '2025-06', 2005, y2025.p, y2025.optional).category).toBe('standard');
  });
});

describe('fuel reimbursement of benefit cars whose fuel the employee pays', () => {
  test('UK: the advisory fuel rate by fuel and engine size, per business mile, tax free up to it', () => {
    const { p } = params(GB_2025_FUEL);
    expect(ukAdvisoryFuelRate('petrol', 1400, p)).toBe(0.12);
    expect(ukAdvisoryFuelRate('petrol', 1401, p)).toBe(0.14);
    expect(ukAdvisoryFuelRate('petrol', 2000, p)).toBe(0.14);
    expect(ukAdvisoryFuelRate('petrol', 2001, p)).toBe(0.22);
    expect(ukAdvisoryFuelRate('diesel', 1600, p)).toBe(0.12);
    expect(ukAdvisoryFuelRate('diesel', 1601, p)).toBe(0.13);
    expect(ukAdvisoryFuelRate('diesel', 2500, p)).toBe(0.18);
    // Without an engine size: the smallest band.
    expect(ukAdvisoryFuelRate('petrol', null, p)).toBe(0.12);
    expect(ukAdvisoryFuelRate('electricity', null, p)).toBe(0.08);
    expect(ukAdvisoryFuelRate('gas', 1800, p)).toBeNull();
    // 100 miles at 14p: £14, all tax free when the company pays the advisory rate.
    const km = 100 * KM_PER_MILE;
    const advisory = ukBenefitCarFuel(km, null, 0.14);
    expect(roundMoney(advisory.paid)).toBe(14);
    expect(roundMoney(advisory.taxFree)).toBe(14);
    expect(roundMoney(advisory.taxable)).toBe(0);
    // The company pays £1.20 per 10 km: 160.93 km → £19.31, of which £14 tax free.
    const own = ukBenefitCarFuel(km, 1.2, 0.14);
    expect(roundMoney(own.paid)).toBe(19.31);
    expect(roundMoney(own.taxFree)).toBe(14);
    expect(roundMoney(own.taxable)).toBe(5.31);
  });

  test("Norway: the company's rate per 10 km; tax free only up to the rate an operator has confirmed (seeded 0)", () => {
    const seeded = params({ 'mileage.benefitCarFuelTaxFree': 0 });
    const paid = noBenefitCarFuel(200, 15, seeded.p);
    expect(paid).toEqual({ paid: 300, taxFree: 0, taxable: 300 });
    expect(noBenefitCarFuel(200, null, seeded.p)).toEqual({ paid: 0, taxFree: 0, taxable: 0 });
    const confirmed = params({ 'mileage.benefitCarFuelTaxFree': 1 });
    expect(noBenefitCarFuel(200, 15, confirmed.p)).toEqual({ paid: 300, taxFree: 200, taxable: 100 });
    expect(() => noBenefitCarFuel(200, 15, params({}).p)).toThrow(MissingBenefitParameter);
  });
});
