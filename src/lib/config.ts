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
  RAW_FRAME_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(7),
  /** The parent account id whose users see /administration/configure-alert-numbers. */
  ALERT_NUMBERS_PARENT_ACCOUNT_ID: z.coerce.number().int().positive().optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Base URL of a Nominatim-compatible reverse geocoder (`/reverse?format=jsonv2`); unset: offline locality names. */
  GEOCODER_URL: z.string().url().optional(),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
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
        return `${key}=${JSON.stringify(relevant[key] ?? '')}: ${issue.message}`;
      }),
    );
  }
  return parsed.data;
}

/** Demo data belongs to the quick start: on by default with the embedded database only. */
export function demoEnabled(config: Config): boolean {
  return config.DEMO ?? config.DATABASE_URL === undefined;
}
