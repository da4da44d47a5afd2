-- CO2 per litre (kWh) of fuel per fuel type, country and year (domain.md §6), read by the CO2 and environmental
-- reports for units without their own g/km. Data, not code: an operator corrects a factor with an UPDATE of its row
-- (or adds a later year with an INSERT; a factor applies from its year until a later one of the same fuel and
-- country), setting `basis`, `verified` and `source` with it. Every report names the factors it used.
-- basis: 'ttw-fossil' tank-to-wheel fossil CO2, 'ttw-blend' tank-to-wheel of the blended fuel sold, 'wtw' well-to-wheel.
CREATE TABLE co2_factors (
  fuel_type text NOT NULL CHECK (fuel_type IN ('petrol', 'diesel', 'electricity', 'gas', 'other')),
  country text NOT NULL CHECK (country IN ('SE', 'NO', 'GB')),
  year integer NOT NULL CHECK (year BETWEEN 2000 AND 2100),
  kg_per_unit double precision NOT NULL CHECK (kg_per_unit >= 0),
  energy_unit text NOT NULL CHECK (energy_unit IN ('l', 'kWh')),
  basis text NOT NULL CHECK (basis IN ('ttw-fossil', 'ttw-blend', 'wtw')),
  verified boolean NOT NULL DEFAULT true,
  source text NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (fuel_type, country, year)
);

INSERT INTO co2_factors (fuel_type, country, year, kg_per_unit, energy_unit, basis, verified, source) VALUES
  -- Sweden: no verified blend figure for Swedish petrol and diesel (their biofuel share would lower them): the fossil
  -- tank-to-wheel fleet defaults, said as such.
  ('petrol', 'SE', 2016, 2.31, 'l', 'ttw-fossil', true, 'Common fleet default (drivingtests.co.nz, fueltripcalculator.com)'),
  ('diesel', 'SE', 2016, 2.68, 'l', 'ttw-fossil', true, 'Common fleet default (drivingtests.co.nz, fueltripcalculator.com)'),
  ('electricity', 'SE', 2016, 0, 'kWh', 'ttw-fossil', true, 'No tailpipe emission'),
  -- Norway: Miljødirektoratet, NIR 2021 (fossil).
  ('petrol', 'NO', 2021, 2.32, 'l', 'ttw-fossil', true, 'Miljødirektoratet, NIR 2021'),
  ('diesel', 'NO', 2021, 2.66, 'l', 'ttw-fossil', true, 'Miljødirektoratet, NIR 2021'),
  ('electricity', 'NO', 2016, 0, 'kWh', 'ttw-fossil', true, 'No tailpipe emission'),
  -- United Kingdom: DESNZ/DEFRA 2025 diesel (B7 blend); petrol from comcar.co.uk (no DESNZ petrol figure at hand).
  ('petrol', 'GB', 2016, 2.3035, 'l', 'ttw-fossil', false, 'comcar.co.uk; DESNZ/DEFRA petrol factor not checked'),
  ('diesel', 'GB', 2016, 2.6391, 'l', 'ttw-fossil', true, 'comcar.co.uk'),
  ('diesel', 'GB', 2025, 2.57082, 'l', 'ttw-blend', true, 'DESNZ/DEFRA 2025 conversion factors: diesel (average biofuel blend, B7)'),
  ('electricity', 'GB', 2016, 0, 'kWh', 'ttw-fossil', true, 'No tailpipe emission');
