import { z } from 'zod';

/**
 * Every setting of the product, read from the environment once at start.
 * Each bad value is named in the error so an operator can fix it without reading code.
 * Defaults are documented in README.md ("Configuration").
 */
const booleanFlag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
  .transform((value) => ['1', 'true', 'yes', 'on'].includes(value));

const port = z.coerce.number().int().min(0).max(65535);

const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: port.default(3000),
  /** Empty: the embedded PGlite database under DATA_DIR. */
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('data'),
  /** Demo account and simulated vehicles; default on for the embedded database, off for DATABASE_URL. */
  DEMO: booleanFlag.optional(),
  DEMO_EMAIL: z.string().email().default('demo@example.com'),
  DEMO_PASSWORD: z.string().min(8).default('Demo-2026!'),
  DEMO_VEHICLES: z.coerce.number().int().min(0).max(100_000).default(12),
  /** Signing secret for session tokens; generated and stored in the database when unset. */
  AUTH_SECRET: z.string().min(32).optional(),
  /** smtp://user:pass@host:port or smtps://…; unset: the embedded outbox. */
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().min(3).default('Fleet Portal <no-reply@localhost>'),
  /** Public base URL used in e-mailed links. */
  PUBLIC_URL: z.string().url().default('http://localhost:3000'),
  TELTONIKA_PORT: port.default(5027),
  GT06_PORT: port.default(5023),
  OSMAND_PORT: port.default(5055),
  GATEWAY: booleanFlag.default(true),
  JOBS: booleanFlag.default(true),
  /** Seconds a running job is leased to its process: a job of a process that died runs again after this. */
  JOB_LEASE_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
  /** Jobs (messages sent, reports built) one process runs side by side. */
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  RAW_FRAME_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(7),
  /** How far ahead of the server clock a tracker's fix time may lie; later ones are stored flagged, never as a fix. */
  FIX_FUTURE_SKEW_SECONDS: z.coerce.number().int().min(0).max(31 * 86_400).default(300),
  /** The parent account id whose users see /administration/configure-alert-numbers. */
  ALERT_NUMBERS_PARENT_ACCOUNT_ID: z.coerce.number().int().positive().optional(),
  /** The OpenAPI document and its viewer at /api/docs; the container image turns them off. */
  API_DOCS: booleanFlag.default(true),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Base URL of a Nominatim-compatible reverse geocoder (`/reverse?format=jsonv2`); unset: offline locality names. */
  GEOCODER_URL: z.string().url().optional(),
  /** SMS through Twilio: all three set, or none (the embedded default records SMS without sending). */
  TWILIO_ACCOUNT_SID: z.string().regex(/^AC[0-9a-fA-F]{32}$/).optional(),
  TWILIO_AUTH_TOKEN: z.string().min(16).optional(),
  /** The sender: an E.164 number or an alphanumeric sender id. */
  TWILIO_FROM: z.string().regex(/^(\+[1-9]\d{7,14}|[A-Za-z0-9 ]{1,11})$/).optional(),
  /** Base of Twilio's REST API (a regional edge, or a server on loopback in tests). */
  TWILIO_API_URL: z.string().url().default('https://api.twilio.com'),
  /** Web push to browsers' push services (no account needed: VAPID keys are generated and kept); off: pushes are recorded only. */
  WEB_PUSH: booleanFlag.default(true),
  /** Contact the push services see in the VAPID token: mailto: or https:; default the MAIL_FROM address. */
  VAPID_SUBJECT: z.string().regex(/^(mailto:|https:\/\/)\S+$/).optional(),
  /** Behind a reverse proxy: the caller's address is the last one it appended to X-Forwarded-For. */
  TRUST_PROXY: booleanFlag.default(false),
  /** redis://host:port: rate limits and lockouts counted there instead of in the database. */
  REDIS_URL: z.string().url().optional(),
  /** nats://host:port: live events (map positions, the alarm bell) between instances through NATS instead of PostgreSQL NOTIFY. */
  NATS_URL: z.string().url().optional(),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`The configuration has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}; the portal did not start:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Settings whose values are never printed: secrets, and URLs and keys that may carry a password or token.
 * A name is enough to find the setting; the operator knows what they typed.
 */
const SECRET_SETTING = /SECRET|TOKEN|PASSWORD|PRIVATE|_KEY|_SID|_URL$/;

/** Settings checked against a pattern: what the pattern asks for, in plain words. */
const FORMAT_IN_WORDS: Record<string, string> = {
  TWILIO_ACCOUNT_SID: 'must be a Twilio account SID: AC followed by 32 hexadecimal digits',
  TWILIO_FROM: 'must be a phone number in international form such as +46701234567, or a sender name of up to 11 letters and digits',
  VAPID_SUBJECT: 'must be a mailto: address or an https:// URL',
};

/** What a setting must be, in plain words, from the schema's complaint about it. */
function requirement(key: string, issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'int') return 'must be a whole number';
      if (issue.expected === 'number') return 'must be a number';
      return `must be a ${issue.expected}`;
    case 'too_small':
      if (issue.origin === 'string') return `must be at least ${issue.minimum} characters long`;
      return `must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters long`;
      return `must be at most ${issue.maximum}`;
    case 'invalid_format':
      if (issue.format === 'url') return 'must be a URL such as https://host.example or postgres://user@host:5432/name';
      if (issue.format === 'email') return 'must be an e-mail address';
      if (issue.format === 'regex') return FORMAT_IN_WORDS[key] ?? 'is not in the expected form';
      return `must be in ${issue.format} format`;
    case 'invalid_value':
      return `must be one of ${issue.values.map(String).join(', ')}`;
    default:
      return 'is not a valid value';
  }
}

/** Parses the environment; blank values count as unset. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') relevant[key] = value.trim();
  }
  const parsed = configSchema.safeParse(relevant);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const key = String(issue.path[0] ?? '?');
        const value = relevant[key] ?? '';
        const shown = SECRET_SETTING.test(key) ? '(its value is not shown)' : `(it is ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)})`;
        return `${key} ${requirement(key, issue)} ${shown}; see "Configuration" in README.md.`;
      }),
    );
  }
  const twilio = ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const;
  const missing = twilio.filter((key) => parsed.data[key] === undefined);
  if (missing.length > 0 && missing.length < twilio.length) {
    const given = twilio.filter((key) => !missing.includes(key)).join(' and ');
    throw new ConfigError(missing.map((key) => `${key} is not set, but SMS through Twilio needs it with ${given} (set all three, or none); see "Configuration" in README.md.`));
  }
  return parsed.data;
}

/** Demo data belongs to the quick start: on by default with the embedded database only. */
export function demoEnabled(config: Config): boolean {
  return config.DEMO ?? config.DATABASE_URL === undefined;
}
