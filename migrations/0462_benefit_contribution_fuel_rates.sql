-- Swedish employer contributions at the special rates for older and young employees, and the fuel reimbursement of
-- benefit cars whose fuel the employee pays in Norway and the UK (domain.md §2, §5). Rates and their limits are rows
-- of benefit_parameters like every other (verified = false where no primary source was found).

-- The benefit car's holder's birth year (chooses the Swedish employer-contribution rate) and engine size in cc (the
-- UK's advisory fuel rate band).
ALTER TABLE benefit_cars ADD COLUMN holder_birth_year integer CHECK (holder_birth_year BETWEEN 1900 AND 2100);
ALTER TABLE benefit_cars ADD COLUMN engine_cc integer CHECK (engine_cc BETWEEN 1 AND 20000);

-- Sweden: 10.21 % for people born 1938–1958 (Fortnox, Belopp och procentsatser 2026).
INSERT INTO benefit_parameters (country, year, key, value, verified, source)
SELECT 'SE', y.year, r.key, r.value, true, r.source
FROM (VALUES (2024), (2025), (2026)) AS y(year)
CROSS JOIN (VALUES
  ('employerContribution.olderRate', 0.1021, 'Fortnox, Belopp och procentsatser: 10.21 % for people born 1938–1958'),
  ('employerContribution.olderBornFrom', 1938, 'Fortnox, Belopp och procentsatser: born 1938–1958'),
  ('employerContribution.olderBornTo', 1958, 'Fortnox, Belopp och procentsatser: born 1938–1958')
) AS r(key, value, source);

-- Sweden: the temporary cut for employees 18–22 at the start of the year (not anyone who has turned 23), 1 Apr 2026 –
-- 30 Sep 2027, on pay up to 25 000 kr a month (prop. 2025/26:66; SFS 2026:100). The 20.81 % is derived (full
-- ålderspensionsavgift plus half the other fees), and the birth years follow from "18–22 at the start of the year".
INSERT INTO benefit_parameters (country, year, key, value, verified, source) VALUES
  ('SE', 2026, 'employerContribution.youthRate', 0.2081, false, 'prop. 2025/26:66; SFS 2026:100: derived rate, confirm'),
  ('SE', 2026, 'employerContribution.youthBornFrom', 2003, false, 'prop. 2025/26:66: 18–22 at the start of 2026'),
  ('SE', 2026, 'employerContribution.youthBornTo', 2007, false, 'prop. 2025/26:66: 18–22 at the start of 2026'),
  ('SE', 2026, 'employerContribution.youthFromMonth', 4, true, 'SFS 2026:100: from 1 Apr 2026'),
  ('SE', 2026, 'employerContribution.youthUntilMonth', 12, true, 'SFS 2026:100: until 30 Sep 2027'),
  ('SE', 2026, 'employerContribution.youthPayCap', 25000, true, 'prop. 2025/26:66: pay up to 25 000 kr a month'),
  ('SE', 2027, 'employerContribution.youthRate', 0.2081, false, 'prop. 2025/26:66; SFS 2026:100: derived rate, confirm'),
  ('SE', 2027, 'employerContribution.youthBornFrom', 2004, false, 'prop. 2025/26:66: 18–22 at the start of 2027'),
  ('SE', 2027, 'employerContribution.youthBornTo', 2008, false, 'prop. 2025/26:66: 18–22 at the start of 2027'),
  ('SE', 2027, 'employerContribution.youthFromMonth', 1, true, 'SFS 2026:100: from 1 Apr 2026'),
  ('SE', 2027, 'employerContribution.youthUntilMonth', 9, true, 'SFS 2026:100: until 30 Sep 2027'),
  ('SE', 2027, 'employerContribution.youthPayCap', 25000, true, 'prop. 2025/26:66: pay up to 25 000 kr a month');

-- UK advisory fuel rates (company cars; gov.uk advisory-fuel-rates, from 1 Sep 2025; reviewed quarterly: an operator
-- updates them). Engine bands: petrol up to 1 400 cc / 1 401–2 000 cc / over 2 000 cc; diesel up to 1 600 / 1 601–2 000 /
-- over 2 000. Electricity: the home-charging rate (8p; public charging 14p, one source says 12p).
INSERT INTO benefit_parameters (country, year, key, value, verified, source)
SELECT 'GB', y.year, r.key, r.value, y.year = 2025, CASE WHEN y.year = 2025 THEN r.source ELSE r.source || '; 2025/26 rate carried forward' END
FROM (VALUES (2025), (2026)) AS y(year)
CROSS JOIN (VALUES
  ('afr.petrol.small', 0.12, 'gov.uk advisory fuel rates from 1 Sep 2025'),
  ('afr.petrol.medium', 0.14, 'gov.uk advisory fuel rates from 1 Sep 2025'),
  ('afr.petrol.large', 0.22, 'gov.uk advisory fuel rates from 1 Sep 2025'),
  ('afr.petrol.smallMaxCc', 1400, 'gov.uk advisory fuel rates: 1400cc or less'),
  ('afr.petrol.mediumMaxCc', 2000, 'gov.uk advisory fuel rates: 1401cc to 2000cc'),
  ('afr.diesel.small', 0.12, 'gov.uk advisory fuel rates from 1 Sep 2025'),
  ('afr.diesel.medium', 0.13, 'gov.uk advisory fuel rates from 1 Sep 2025'),
  ('afr.diesel.large', 0.18, 'gov.uk advisory fuel rates from 1 Sep 2025'),
  ('afr.diesel.smallMaxCc', 1600, 'gov.uk advisory fuel rates: 1600cc or less'),
  ('afr.diesel.mediumMaxCc', 2000, 'gov.uk advisory fuel rates: 1601cc to 2000cc'),
  ('afr.electricity', 0.08, 'gov.uk advisory electricity rate from 1 Sep 2025 (home charging)')
) AS r(key, value, source);

-- Norway: no tax-free rate for a company car's business kilometres whose fuel the employee pays is documented: 0 until
-- an operator confirms one with Skatteetaten (the whole payment is then reported as taxable).
INSERT INTO benefit_parameters (country, year, key, value, verified, source)
SELECT 'NO', y.year, 'mileage.benefitCarFuelTaxFree', 0, false, 'No documented tax-free rate; confirm with Skatteetaten'
FROM (VALUES (2024), (2025), (2026)) AS y(year);
