-- Car benefit value and reimbursement (spec §1 reports, §3 Benefit and reimbursement; domain.md §2, §3, §5).
--
-- benefit_parameters: every amount and rate the benefit formulas read, per country and year (UK: the tax year that
-- starts on 6 April of `year`). Data, not code: an operator corrects a value with an UPDATE (set verified and source
-- with it); a report lists the parameters it used and whether each is verified. Values marked verified = false are
-- the open items of domain.md (no primary source found) and must be confirmed before they are relied on.
CREATE TABLE benefit_parameters (
  country text NOT NULL CHECK (country IN ('SE', 'NO', 'GB')),
  year integer NOT NULL CHECK (year BETWEEN 2000 AND 2100),
  key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 60),
  value double precision NOT NULL,
  verified boolean NOT NULL DEFAULT true,
  source text NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (country, year, key)
);

-- What valuing a unit as a benefit car needs beyond the unit's own fields (fuel type, consumption, CO2, car usage,
-- fuel payer and reimbursement stay on the unit).
CREATE TABLE benefit_cars (
  unit_id integer PRIMARY KEY REFERENCES units(id) ON DELETE CASCADE,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  country text CHECK (country IN ('SE', 'NO', 'GB')),
  powertrain text NOT NULL DEFAULT 'combustion',
  vehicle_class text NOT NULL DEFAULT 'car' CHECK (vehicle_class IN ('car', 'van')),
  list_price double precision CHECK (list_price >= 0),
  extra_equipment double precision NOT NULL DEFAULT 0 CHECK (extra_equipment >= 0),
  first_registered date,
  vehicle_tax double precision NOT NULL DEFAULT 0 CHECK (vehicle_tax >= 0),
  electric_range_miles integer CHECK (electric_range_miles >= 0),
  diesel_rde2 boolean NOT NULL DEFAULT false,
  capital_contribution double precision NOT NULL DEFAULT 0 CHECK (capital_contribution >= 0),
  holder_user_id integer REFERENCES users(id) ON DELETE SET NULL,
  available_from date,
  available_until date,
  updated_by integer REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT benefit_cars_available_order CHECK (available_until IS NULL OR available_from IS NULL OR available_until >= available_from)
);
CREATE INDEX benefit_cars_account ON benefit_cars (account_id);

-- Sweden: the shape of the three valuation models (SFS 2021:479; Skatteverket rättslig vägledning 321424), the same
-- every year, and the year's PBB, SLR, reductions, mileage rates and employer contributions.
INSERT INTO benefit_parameters (country, year, key, value, verified, source)
SELECT 'SE', y.year, r.key, r.value, true, r.source
FROM (VALUES (2024), (2025), (2026)) AS y(year)
CROSS JOIN (VALUES
  ('basicShare', 0.29, 'Skatteverket 321424: 0.29 × PBB (models from 1 Jul 2018)'),
  ('basicShareBefore2018', 0.317, 'Skatteverket 321424: 0.317 × PBB (before 1 Jul 2018)'),
  ('interestFactor2021', 0.70, 'SFS 2021:479: nybilspris × (0.70 × SLR + 1 pp)'),
  ('interestAddition2021', 0.01, 'SFS 2021:479: nybilspris × (0.70 × SLR + 1 pp)'),
  ('interestFactor2018', 0.75, 'Skatteverket 321424: nybilspris × 0.75 × SLR'),
  ('pricePart2021', 0.13, 'SFS 2021:479: 13 % of nybilspris, flat'),
  ('pricePartLow', 0.09, 'Skatteverket 321424: 9 % up to 7.5 PBB'),
  ('pricePartHigh', 0.20, 'Skatteverket 321424: 20 % above 7.5 PBB'),
  ('pricePartStepPbb', 7.5, 'Skatteverket 321424: 7.5 PBB'),
  ('slrFloor', 0.005, 'Skatteverket 321424: SLR at least 0.5 %'),
  ('oldCarYears', 6, 'Skatteverket 321424: cars 6 years or older'),
  ('oldCarFloorPbb', 4, 'Skatteverket 321424: at least 4 × PBB'),
  ('reductionCap', 0.5, 'prop. 2021/22:173: at most 50 % of nybilspris'),
  ('employerContributionRate', 0.3142, 'Fortnox, Belopp och procentsatser: 31.42 %')
) AS r(key, value, source);

INSERT INTO benefit_parameters (country, year, key, value, verified, source) VALUES
  ('SE', 2024, 'pbb', 57300, true, 'basbelopp.se; unifleet.se'),
  ('SE', 2025, 'pbb', 58800, true, 'affärslivet.com; fastigo.se'),
  ('SE', 2026, 'pbb', 59200, true, 'SFS 2025:872'),
  ('SE', 2024, 'slr', 0.0262, true, 'unifleet.se: SLR end of Nov 2023'),
  ('SE', 2025, 'slr', 0.0196, true, 'affärslivet.com; fastigo.se: SLR end of Nov 2024'),
  ('SE', 2026, 'slr', 0.0255, false, 'Public code constant only; confirm with Riksgälden (SLR 30 Nov 2025)'),
  ('SE', 2024, 'reduction.electric', 350000, true, 'prop. 2021/22:173'),
  ('SE', 2025, 'reduction.electric', 350000, true, 'prop. 2021/22:173'),
  ('SE', 2026, 'reduction.electric', 350000, false, 'prop. 2021/22:173; end date (31 Dec 2026) not confirmed'),
  ('SE', 2024, 'reduction.hydrogen', 350000, true, 'prop. 2021/22:173'),
  ('SE', 2025, 'reduction.hydrogen', 350000, true, 'prop. 2021/22:173'),
  ('SE', 2026, 'reduction.hydrogen', 350000, false, 'prop. 2021/22:173; end date (31 Dec 2026) not confirmed'),
  ('SE', 2024, 'reduction.plugInHybrid', 140000, true, 'prop. 2021/22:173'),
  ('SE', 2025, 'reduction.plugInHybrid', 140000, true, 'prop. 2021/22:173'),
  ('SE', 2026, 'reduction.plugInHybrid', 140000, false, 'prop. 2021/22:173; end date (31 Dec 2026) not confirmed'),
  ('SE', 2024, 'reduction.gas', 100000, true, 'prop. 2021/22:173'),
  ('SE', 2025, 'reduction.gas', 100000, true, 'prop. 2021/22:173'),
  ('SE', 2026, 'reduction.gas', 100000, false, 'prop. 2021/22:173; end date (31 Dec 2026) not confirmed'),
  ('SE', 2024, 'mileage.ownCar', 25, true, 'abax.com Milersättning 2024 (kr/mil)'),
  ('SE', 2025, 'mileage.ownCar', 25, true, 'Milersättning 2025 (kr/mil)'),
  ('SE', 2026, 'mileage.ownCar', 25, false, 'Fixed in inkomstskattelagen; 2026 not confirmed on skatteverket.se'),
  ('SE', 2024, 'mileage.benefitFossil', 12, true, 'abax.com Milersättning 2024 (kr/mil; fossil and plug-in hybrid)'),
  ('SE', 2025, 'mileage.benefitFossil', 12, true, 'Milersättning 2025 (kr/mil)'),
  ('SE', 2026, 'mileage.benefitFossil', 12, false, 'Fixed in inkomstskattelagen; 2026 not confirmed on skatteverket.se'),
  ('SE', 2024, 'mileage.benefitElectric', 9.5, true, 'abax.com Milersättning 2024 (kr/mil; fully electric)'),
  ('SE', 2025, 'mileage.benefitElectric', 9.5, true, 'Milersättning 2025 (kr/mil)'),
  ('SE', 2026, 'mileage.benefitElectric', 9.5, false, 'Fixed in inkomstskattelagen; 2026 not confirmed on skatteverket.se');

-- Norway: standard rule (Skatteetaten satser; revisorforeningen.no; kontohjelp.no).
INSERT INTO benefit_parameters (country, year, key, value, verified, source)
SELECT 'NO', y.year, r.key, r.value, true, r.source
FROM (VALUES (2024), (2025), (2026)) AS y(year)
CROSS JOIN (VALUES
  ('rateLow', 0.30, 'Skatteetaten: 30 % up to the threshold'),
  ('rateHigh', 0.20, 'Skatteetaten: 20 % above the threshold'),
  ('ageYears', 3, 'Skatteetaten: cars more than 3 years old on 1 January'),
  ('ageReductionFactor', 0.75, 'Skatteetaten: base reduced to 75 %'),
  ('businessKmLimit', 40000, 'Skatteetaten: business driving above 40 000 km'),
  ('businessKmFactor', 0.75, 'Skatteetaten: base reduced to 75 %'),
  ('vanReduction', 0.5, 'Skatteetaten: vans, list price reduced by 50 %'),
  ('vanReductionCap', 150000, 'Skatteetaten: van reduction at most 150 000 kr'),
  ('electricDiscount', 0, 'Skatteetaten: no electric-car discount from 2023'),
  ('mileage.taxFree', 3.5, 'amestoaccounthouse.no; mynt.com: 3.50 kr/km tax free since 2018')
) AS r(key, value, source);

INSERT INTO benefit_parameters (country, year, key, value, verified, source) VALUES
  ('NO', 2024, 'threshold', 351700, true, 'Skatteetaten satser 2024'),
  ('NO', 2025, 'threshold', 362300, true, 'Skatteetaten satser 2025'),
  ('NO', 2026, 'threshold', 362300, false, '2025 value carried over: the 2026 threshold was not found'),
  ('NO', 2024, 'employerContributionRate', 0.141, false, 'Zone I rate; source found for 2026 only'),
  ('NO', 2025, 'employerContributionRate', 0.141, false, 'Zone I rate; source found for 2026 only'),
  ('NO', 2026, 'employerContributionRate', 0.141, true, 'Arbeidsgiveravgift zone I 2026'),
  ('NO', 2024, 'mileage.rate', 5.00, false, '2025 rate carried back: the 2024 statens sats was not checked'),
  ('NO', 2025, 'mileage.rate', 5.00, true, 'Statens sats 2025 (mynt.com)'),
  ('NO', 2026, 'mileage.rate', 5.30, true, 'Statens sats 2026 (naturviterne.no)');

-- United Kingdom (tax year from 6 April of `year`): appropriate percentages (lsonline.co.uk, mercia-group.com; gov.uk
-- policy papers 21 Nov 2022 and 30 Oct 2024), diesel supplement, Class 1A NIC, AMAP (gov.uk; unchanged since 2011).
INSERT INTO benefit_parameters (country, year, key, value, verified, source)
SELECT 'GB', y.year, r.key, r.value, true, r.source
FROM (VALUES (2024), (2025), (2026), (2027)) AS y(year)
CROSS JOIN (VALUES
  ('dieselSupplement', 0.04, 'HMRC: diesel cars not RDE2 compliant +4 %'),
  ('capitalContributionCap', 5000, 'ITEPA: capital contributions up to £5,000'),
  ('amap.first', 0.45, 'gov.uk AMAP: first 10 000 business miles'),
  ('amap.after', 0.25, 'gov.uk AMAP: after 10 000 miles'),
  ('amap.threshold', 10000, 'gov.uk AMAP: 10 000 miles in the tax year, across all cars')
) AS r(key, value, source);

INSERT INTO benefit_parameters (country, year, key, value, verified, source)
SELECT 'GB', t.year, t.key, t.value, t.verified, t.source
FROM (VALUES
  (2024, 'ap.zero', 0.02, true, '2024/25 table'), (2024, 'ap.range130', 0.02, true, '2024/25 table'),
  (2024, 'ap.range70', 0.05, true, '2024/25 table'), (2024, 'ap.range40', 0.08, true, '2024/25 table'),
  (2024, 'ap.range30', 0.12, true, '2024/25 table'), (2024, 'ap.rangeUnder30', 0.14, true, '2024/25 table'),
  (2024, 'ap.51', 0.15, true, '2024/25 table'), (2024, 'ap.max', 0.37, true, '2024/25 table: 37 % from 160 g'),
  (2024, 'ap.frozenFromG', 100000, true, 'no frozen bands'), (2024, 'ap.frozen51', 0.15, true, 'no frozen bands'),
  (2024, 'class1aNic', 0.138, true, 'att.org.uk: 13.8 % until 5 Apr 2025'),
  (2025, 'ap.zero', 0.03, true, '2025/26 table'), (2025, 'ap.range130', 0.03, true, '2025/26 table'),
  (2025, 'ap.range70', 0.06, true, '2025/26 table'), (2025, 'ap.range40', 0.09, true, '2025/26 table'),
  (2025, 'ap.range30', 0.13, true, '2025/26 table'), (2025, 'ap.rangeUnder30', 0.15, true, '2025/26 table'),
  (2025, 'ap.51', 0.16, true, '2025/26 table'), (2025, 'ap.max', 0.37, true, '2025/26 table'),
  (2025, 'ap.frozenFromG', 100000, true, 'no frozen bands'), (2025, 'ap.frozen51', 0.16, true, 'no frozen bands'),
  (2025, 'class1aNic', 0.15, true, 'letstalkfleet.co.uk: 15 % from 6 Apr 2025'),
  (2026, 'ap.zero', 0.04, true, 'gov.uk 21 Nov 2022'), (2026, 'ap.range130', 0.04, true, 'gov.uk 21 Nov 2022'),
  (2026, 'ap.range70', 0.07, true, 'gov.uk 21 Nov 2022'), (2026, 'ap.range40', 0.10, true, 'gov.uk 21 Nov 2022'),
  (2026, 'ap.range30', 0.14, true, 'gov.uk 21 Nov 2022'), (2026, 'ap.rangeUnder30', 0.16, true, 'gov.uk 21 Nov 2022'),
  (2026, 'ap.51', 0.17, true, 'gov.uk 21 Nov 2022'), (2026, 'ap.max', 0.37, true, 'gov.uk 21 Nov 2022'),
  (2026, 'ap.frozenFromG', 75, false, 'gov.uk 21 Nov 2022: bands from 75 g frozen at 2025/26; band edges not checked'),
  (2026, 'ap.frozen51', 0.16, false, 'gov.uk 21 Nov 2022: bands from 75 g frozen at 2025/26; band edges not checked'),
  (2026, 'class1aNic', 0.15, true, 'letstalkfleet.co.uk: 15 % from 6 Apr 2025'),
  (2027, 'ap.zero', 0.05, true, 'gov.uk 21 Nov 2022'), (2027, 'ap.range130', 0.05, true, 'gov.uk 21 Nov 2022'),
  (2027, 'ap.range70', 0.08, true, 'gov.uk 21 Nov 2022'), (2027, 'ap.range40', 0.11, true, 'gov.uk 21 Nov 2022'),
  (2027, 'ap.range30', 0.15, true, 'gov.uk 21 Nov 2022'), (2027, 'ap.rangeUnder30', 0.17, true, 'gov.uk 21 Nov 2022'),
  (2027, 'ap.51', 0.18, true, 'gov.uk 21 Nov 2022'), (2027, 'ap.max', 0.37, true, 'gov.uk 21 Nov 2022'),
  (2027, 'ap.frozenFromG', 75, false, 'gov.uk 21 Nov 2022: bands from 75 g frozen at 2025/26; band edges not checked'),
  (2027, 'ap.frozen51', 0.16, false, 'gov.uk 21 Nov 2022: bands from 75 g frozen at 2025/26; band edges not checked'),
  (2027, 'class1aNic', 0.15, false, 'Rate from 6 Apr 2025 carried forward')
) AS t(year, key, value, verified, source);
