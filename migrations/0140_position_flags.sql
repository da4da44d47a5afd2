-- Support reads what a position's flags mean from the column itself.
COMMENT ON COLUMN positions.flags IS
  '1 = no valid fix; 2 = fix time further ahead than FIX_FUTURE_SKEW_SECONDS; 4 = implausible (coordinates outside ±90/±180, a time that is no date or before 2000, or a value the database refused: stored without its IO). 2 and 4: never a latest position, never part of a trip.';
