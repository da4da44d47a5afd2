-- Places with rules that categorize trips (spec §1 places with rules, §2 /user/places, §3 Place, §5 place needs at
-- least one unit, address max 50).

-- A place: a circle (centre, radius in metres) with a label and an address, assigned to units of its account.
CREATE TABLE places (
  id serial PRIMARY KEY,
  account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  label text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 100),
  address text NOT NULL DEFAULT '' CHECK (char_length(address) <= 50),
  -- Geography, so "is this point inside the place" is ST_DWithin in metres on the spheroid.
  center geography(Point, 4326) NOT NULL,
  -- 50 m (a parking lot and GPS scatter) to 9999 m (spec §9: the largest zone radius).
  radius_m integer NOT NULL CHECK (radius_m BETWEEN 50 AND 9999),
  -- The zone the rules' days and times are read in: the one of the person who last saved the place.
  time_zone text NOT NULL DEFAULT 'Europe/Stockholm',
  created_by integer REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX places_account ON places (account_id);
CREATE INDEX places_center ON places USING gist (center);

-- Spec §5: a place needs at least one unit (checked by the service; the rows go with the place or the unit).
CREATE TABLE place_units (
  place_id integer NOT NULL REFERENCES places(id) ON DELETE CASCADE,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  PRIMARY KEY (place_id, unit_id)
);
CREATE INDEX place_units_unit ON place_units (unit_id);

-- A rule of a place: a trip of one of its units that starts at, ends at, or drives between this place and another,
-- on one of the days (0 Sunday, 1-6 Monday-Saturday, spec §9) at a time in [from_minute, to_minute) of the day,
-- is categorized as business or private. Deleting the other place deletes the rules that name it.
CREATE TABLE place_rules (
  id serial PRIMARY KEY,
  place_id integer NOT NULL REFERENCES places(id) ON DELETE CASCADE,
  position smallint NOT NULL DEFAULT 0,
  kind text NOT NULL CHECK (kind IN ('start', 'end', 'between')),
  other_place_id integer REFERENCES places(id) ON DELETE CASCADE,
  days smallint[] NOT NULL CHECK (cardinality(days) BETWEEN 1 AND 7 AND days <@ ARRAY[0, 1, 2, 3, 4, 5, 6]::smallint[]),
  from_minute smallint NOT NULL CHECK (from_minute BETWEEN 0 AND 1425 AND from_minute % 15 = 0),
  to_minute smallint NOT NULL CHECK (to_minute BETWEEN 15 AND 1440 AND to_minute % 15 = 0),
  category text NOT NULL CHECK (category IN ('business', 'private')),
  CHECK (to_minute > from_minute),
  CHECK ((kind = 'between') = (other_place_id IS NOT NULL)),
  CHECK (other_place_id IS NULL OR other_place_id <> place_id)
);
CREATE INDEX place_rules_place ON place_rules (place_id, position);
CREATE INDEX place_rules_other ON place_rules (other_place_id) WHERE other_place_id IS NOT NULL;
