-- unit_state is rewritten with every report of every unit. Leaving room on each page lets PostgreSQL
-- update those rows in place (HOT updates: no index maintenance, less WAL, less vacuum work).
ALTER TABLE unit_state SET (fillfactor = 70);
