-- Password lockouts are counted in the shared rate-limit store (`rate_limits`, or Redis with REDIS_URL: see
-- src/modules/auth/rate-limits.ts), per e-mail address and per address pair. These two columns of the first schema were
-- never written or read since; a user's lockout is asked of the auth service, not of the user row.
ALTER TABLE users DROP COLUMN failed_logins, DROP COLUMN locked_until;
