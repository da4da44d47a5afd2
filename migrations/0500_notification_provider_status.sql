-- The provider's answer to a failed attempt (an HTTP status or SMTP reply code); null when no answer came (a time-out,
-- a lost connection) or the attempt failed before or after talking to the provider. A send retried after an attempt
-- without a 4xx answer, or after one whose process died and left no row, may already be with the provider: an SMS then
-- asks the provider before sending again (its Messages list, matched on the reference the text ends with).
ALTER TABLE notification_attempts ADD COLUMN provider_status integer;
