import { z } from '../../lib/validation';

/** Shared with the web app: the same rules run in the browser and on the server. */

/** Spec §5: at least 8 characters with an upper-case letter, a digit and a special character. */
export const passwordSchema = z
  .string({ error: 'validation.password.required' })
  .min(1, 'validation.password.required')
  .refine((value) => value.length >= 8, 'validation.password.tooShort')
  .refine((value) => /[A-ZÅÄÖÆØ]/.test(value), 'validation.password.upper')
  .refine((value) => /\d/.test(value), 'validation.password.digit')
  .refine((value) => /[^A-Za-z0-9ÅÄÖÆØåäöæø]/.test(value), 'validation.password.special');

export const fingerprintSchema = z.object({
  userAgent: z.string().max(512),
  hardwareConcurrency: z.coerce.number().int().min(0).max(1024).optional(),
  deviceMemory: z.coerce.number().min(0).max(1024).optional(),
  platform: z.string().max(128).optional(),
});
export type Fingerprint = z.infer<typeof fingerprintSchema>;

const subsiteId = z.coerce.number().int().min(0, 'validation.subsite').max(7, 'validation.subsite');
const languageSchema = z.enum(['sv', 'en', 'no']).default('sv');
const flag = z.union([z.boolean(), z.literal(0), z.literal(1), z.literal('0'), z.literal('1')]).transform((v) => v === true || v === 1 || v === '1');

export const loginSchema = z.object({
  username: z.string().trim().min(1, 'validation.username.required').max(254),
  password: z.string().min(1, 'validation.password.required').max(256),
  subsiteid: subsiteId.default(0),
  remember_me: flag.default(false),
  fingerprint: fingerprintSchema.optional(),
  /** The secret this browser was given when its user chose "trust this browser". */
  device_secret: z.string().max(128).optional(),
});

/** The random token the login answered with when it asked for a code: it binds the code to that login. */
const challengeSchema = z.string().min(20, 'auth.twoFactor.noCode').max(128, 'auth.twoFactor.noCode');

export const twoFactorGenerateSchema = z.object({
  lang: languageSchema,
  challenge: challengeSchema,
});

export const twoFactorVerifySchema = z.object({
  code: z.string().trim().min(6, 'validation.twoFactor.code').max(12, 'validation.twoFactor.code'),
  challenge: challengeSchema,
  remember: flag.default(false),
  fingerprint: fingerprintSchema.optional(),
});

export const forgotPasswordSchema = z.object({
  subsite_id: subsiteId.default(0),
  email_address: z.string().trim().toLowerCase().email('validation.email'),
  lang: languageSchema,
});

export const resetPasswordSchema = z
  .object({
    subsite_id: subsiteId.default(0),
    code: z.string().trim().min(1, 'validation.reset.codeMissing').max(128),
    password: passwordSchema,
    password_confirmation: z.string(),
  })
  .refine((value) => value.password === value.password_confirmation, {
    path: ['password_confirmation'],
    message: 'validation.password.mismatch',
  });

export const userUpdateSchema = z.object({
  userId: z.coerce.number().int().positive(),
  email: z.string().trim().toLowerCase().email('validation.email'),
  password: passwordSchema,
  /** The caller's own current password: a token alone never changes an e-mail or a password. */
  current_password: z.string({ error: 'validation.currentPassword.required' }).min(1, 'validation.currentPassword.required').max(256),
});

export const alertOptOutSchema = z.object({
  nt_useremail: z.string().trim().toLowerCase().min(1, 'validation.email').max(254),
  nt_password: z.string().min(1, 'validation.password.required').max(256),
  remove_push: flag.default(false),
  subsite_id: subsiteId.default(0),
});

export type Role = 'admin' | 'user' | 'support' | 'reseller';

/** The caller as every module sees it after authentication. */
export interface Actor {
  userId: number;
  accountId: number;
  /** The account above this one (reseller or group), or the account itself. */
  parentAccountId: number;
  subsiteId: number;
  role: Role;
  language: 'sv' | 'en' | 'no';
  timezone: string;
  sessionId: string;
  /** Spec §1: whether the real-time map is enabled for this user (the RealTimeMap flag), as read when authenticated. */
  realtimeMap: boolean;
  /** Spec §2: a user with only Bas subscriptions, for whom places, the car schedule and safe return home are hidden (and refused). */
  basicOnly: boolean;
  /** Set while a support or reseller user works inside a customer's account (`accountId`): read-only, audited. */
  acting?: { homeAccountId: number };
}

/** The `data.user` object the web app stores (spec §3 User). */
export interface SessionUser {
  ID: number;
  FirstName: string;
  LastName: string;
  FullName: string;
  Email: string;
  Phone: string;
  Role: Role;
  IsAdmin: boolean;
  AccountID: number;
  ParentID: number;
  SubsiteID: number;
  EnableTwoFactorAuth: 0 | 1;
  userHasOnlyBasSubscription: boolean;
  RealTimeMap: boolean;
  Language: 'sv' | 'en' | 'no';
  TimeZone: string;
  token: string;
  /** The customer's account a support or reseller user has opened (the web app shows a banner); absent otherwise. */
  ActingAccount?: { ID: number; CompanyName: string };
}

/** Spec §9 constants. */
/** Wrong passwords for one account from one address before that address is locked out of it for LOGIN_LOCK_MS. */
export const LOGIN_MAX_ATTEMPTS = 5;
/** Wrong passwords for one account from all addresses together (at least four of them) before the account locks. */
export const ACCOUNT_MAX_FAILURES = 20;
export const LOGIN_LOCK_MS = 60 * 60 * 1000;
/** Wrong codes per e-mailed code, per challenge (across resent codes) and per account an hour. */
export const TWO_FACTOR_CODE_ATTEMPTS = 5;
export const TWO_FACTOR_CHALLENGE_ATTEMPTS = 10;
export const TWO_FACTOR_ACCOUNT_ATTEMPTS = 20;
/** Codes per challenge, the resend countdown (00:10) enforced by the server, and codes per account an hour. */
export const TWO_FACTOR_MAX_CODES = 5;
export const TWO_FACTOR_RESEND_MS = 10 * 1000;
export const TWO_FACTOR_ACCOUNT_CODES = 10;
export const TWO_FACTOR_CHALLENGE_MS = 15 * 60 * 1000;
export const TWO_FACTOR_CODE_MS = 3 * 60 * 1000;
export const TRUSTED_BROWSER_MS = 15_552_000 * 1000;
export const RESET_LINK_MS = 60 * 60 * 1000;
export const SESSION_MS = 12 * 60 * 60 * 1000;
export const REMEMBERED_SESSION_MS = 30 * 24 * 60 * 60 * 1000;
