-- The benefit value and reimbursement report can be scheduled like the fleet reports.
ALTER TABLE report_schedules DROP CONSTRAINT IF EXISTS report_schedules_kind_check;
ALTER TABLE report_schedules ADD CONSTRAINT report_schedules_kind_check CHECK (kind IN ('summary', 'eco', 'fuel', 'co2', 'environment', 'benefit'));
