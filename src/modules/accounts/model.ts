import { queryText, z } from '../../lib/validation';
import { passwordSchema } from '../auth/model';
import { bulkTaskSchema, imeiSchema } from '../units/model';

export { IMEI_PATTERN, imeiSchema, isValidImeiFormat } from '../units/model';

/**
 * Registration (spec §3 "Registration payload", §5 validation rules). Shared with the web app: the wizard,
 * the old form and the server run the same schemas, so this file must stay free of server-only imports.
 * Every message is an i18n key (see src/lib/i18n/messages).
 */

/** Spec §5 field limits. */
export const LIMITS = {
  reseller: 255,
  comment: 500,
  street: 50,
  city: 50,
  company: 50,
  country: 50,
  contactPerson: 50,
  /** First and last name together. */
  fullName: 50,
  postalCode: 7,
  orgNumber: 50,
  email: 254,
  password: 256,
  /** E.164: at most 15 digits including the country code. */
  phoneDigits: 15,
} as const;

/** Spec §5: a phone number has at least 8 digits after the dial code. */
export const PHONE_MIN_DIGITS = 8;
/** Spec §9: preferred phone countries Sweden, Norway, United Kingdom; default Sweden (46). */
export const DEFAULT_DIAL_CODE = '46';
export const PREFERRED_DIAL_CODES = ['46', '47', '44'] as const;
/** Spec §5: for these dial codes (07 is the legacy form's value) the national part must not start with 46, 47 or 07. */
export const NORDIC_DIAL_CODES = ['46', '47', '07'] as const;
const NORDIC_PREFIXES = ['46', '47', '07'] as const;
/** Spec §5: the old form's company number field refuses what looks like a phone number. */
const COMPANY_PHONE_FORBIDDEN_PREFIXES = ['07', '46', '47', '+'] as const;

// ---------------------------------------------------------------------------------------------
// Pure validators (no zod), for the web app's live hints and for the schemas below.
// Each returns an i18n key describing the first problem, or null when the value is fine.
// ---------------------------------------------------------------------------------------------

/** Spec §5 password rule: min 8 with an upper-case letter, a digit and a special character. */
export function passwordProblem(password: string): string | null {
  const result = passwordSchema.safeParse(password);
  return result.success ? null : (result.error.issues[0]?.message ?? 'validation.invalid');
}
export function isValidPassword(password: string): boolean {
  return passwordProblem(password) === null;
}

/** Spec §5: usernames use a-z, 0-9, hyphen and underscore (the login username of a portal user is the e-mail). */
export function isValidUsername(username: string): boolean {
  return /^[a-z0-9_-]+$/.test(username);
}

/** Lower-cased and trimmed, as stored (spec §5: e-mail lower-cased). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Swedish personal identity number (personnummer, also samordningsnummer with day + 60):
 * 12 digits `YYYYMMDDNNNC`, or 13 with a dash `YYYYMMDD-NNNC`; a real date and a valid Luhn check digit.
 */
export function isValidPersonnummer(input: string): boolean {
  const match = /^(\d{8})-?(\d{4})$/.exec(input.trim());
  if (!match) return false;
  const digits = `${match[1]}${match[2]}`;
  const year = Number(digits.slice(0, 4));
  const month = Number(digits.slice(4, 6));
  const rawDay = Number(digits.slice(6, 8));
  const day = rawDay > 60 ? rawDay - 60 : rawDay;
  if (year < 1800 || month < 1 || month > 12) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return false;
  return luhnValid(digits.slice(2));
}

/** Luhn (mod 10) over a digit string whose last digit is the check digit; weights 2,1,2,1… from the left for 10 digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  // Double every second digit counted from the right, starting with the one left of the check digit.
  for (let index = 0; index < digits.length; index++) {
    const fromRight = digits.length - 1 - index;
    let value = Number(digits[index]);
    if (fromRight % 2 === 1) {
      value *= 2;
      if (value > 9) value -= 9;
    }
    sum += value;
  }
  return sum % 10 === 0;
}

/** Spec §5: personal number 12 digits (13 with dash) passing the validity check. */
export function personalNumberProblem(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed === '') return 'validation.personalNumber.required';
  if (!/^\d{8}-?\d{4}$/.test(trimmed)) return 'validation.personalNumber.format';
  return isValidPersonnummer(trimmed) ? null : 'validation.personalNumber.invalid';
}

/** Spec §5: organisation number required, digits and dashes, at most 50. */
export function orgNumberProblem(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed === '') return 'validation.orgNumber.required';
  if (trimmed.length > LIMITS.orgNumber) return `validation.tooBig.string:${LIMITS.orgNumber}`;
  if (!/^[\d-]+$/.test(trimmed) || !/\d/.test(trimmed)) return 'validation.orgNumber.format';
  return null;
}

/** Spec §5: the old form's company number must not start with 07, 46, 47 or + (it is not a phone number). */
export function companyPhoneProblem(value: string): string | null {
  const trimmed = value.trim();
  if (COMPANY_PHONE_FORBIDDEN_PREFIXES.some((prefix) => trimmed.startsWith(prefix))) return 'validation.orgNumber.looksLikePhone';
  return orgNumberProblem(trimmed);
}

/** A dial code as the wizard sends it: digits, optionally with a leading '+'. */
export function normalizeDialCode(dialCode: string): string {
  return dialCode.trim().replace(/^\+/, '');
}

/** Spaces, dashes and brackets are formatting; everything else must be digits. */
export function compactPhone(phone: string): string {
  return phone.replace(/[\s()-]/g, '');
}

/**
 * The national part of a wizard phone number. The wizard sends the whole number (`+46701234567` or
 * `46701234567`, the dial code first, as phone inputs do); a number typed without the dial code is taken as national.
 */
export function nationalPart(phone: string, dialCode: string): string {
  const compact = compactPhone(phone);
  const code = normalizeDialCode(dialCode);
  if (compact.startsWith(`+${code}`)) return compact.slice(code.length + 1);
  if (compact.startsWith('+')) return compact.slice(1);
  return code !== '' && compact.startsWith(code) ? compact.slice(code.length) : compact;
}

/**
 * Spec §5, wizard phone: not empty; digits only; for dial codes 46, 47 (and the legacy 07) the national part must not
 * start with 46, 47 or 07; Swedish numbers never start with 0; at least 8 digits.
 */
export function wizardPhoneProblem(phone: string, dialCode: string): string | null {
  const compact = compactPhone(phone);
  const code = normalizeDialCode(dialCode);
  if (!/^\d{1,4}$/.test(code)) return 'validation.dialCode';
  if (compact.startsWith('+') && !compact.startsWith(`+${code}`)) return 'validation.phone.dialCodeMismatch';
  const national = nationalPart(compact, code);
  if (national === '') return 'validation.phone.required';
  if (!/^\d+$/.test(national)) return 'validation.phone.digits';
  if ((NORDIC_DIAL_CODES as readonly string[]).includes(code) && NORDIC_PREFIXES.some((prefix) => national.startsWith(prefix))) {
    return 'validation.phone.prefix';
  }
  if (code === '46' && national.startsWith('0')) return 'validation.phone.prefix';
  if (national.length < PHONE_MIN_DIGITS) return 'validation.phone.tooShort';
  if (code.length + national.length > LIMITS.phoneDigits) return 'validation.phone.tooLong';
  return null;
}

/** Spec §5: the wizard shows a hint while the national part has 1 to 8 digits. */
export function phoneHintVisible(phone: string, dialCode: string): boolean {
  const national = nationalPart(phone, dialCode);
  return /^\d{1,8}$/.test(national);
}

/** The stored form of a wizard phone number: `+<dial code><national part>`. */
export function internationalPhone(phone: string, dialCode: string): string {
  return `+${normalizeDialCode(dialCode)}${nationalPart(phone, dialCode)}`;
}

/**
 * Spec §5, old form phone (sent with a + prefix): digits only, at least 8; a Swedish number (+46) must not
 * continue with 46 or 0.
 */
export function oldFormPhoneProblem(phone: string): string | null {
  const compact = compactPhone(phone);
  const digits = compact.replace(/^\+/, '');
  if (digits === '') return 'validation.phone.required';
  if (!/^\d+$/.test(digits)) return 'validation.phone.digits';
  if (digits.startsWith('0')) return 'validation.phone.prefix';
  if (digits.startsWith('46') && /^(46|0)/.test(digits.slice(2))) return 'validation.phone.prefix';
  const national = digits.startsWith('46') ? digits.slice(2) : digits;
  if (national.length < PHONE_MIN_DIGITS) return 'validation.phone.tooShort';
  if (digits.length > LIMITS.phoneDigits) return 'validation.phone.tooLong';
  return null;
}

/** Spec §4: the personal-number step exists for private users in Sweden only. */
export function isSwedishDialCode(dialCode: string): boolean {
  return normalizeDialCode(dialCode) === '46';
}

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

/** 0/1, '0'/'1', booleans and 'on'/'true' from HTML forms. */
const flag = z
  .union([z.boolean(), z.literal(0), z.literal(1), z.enum(['0', '1', 'true', 'false', 'on', 'off'])], {
    error: (issue) => (issue.input === undefined || issue.input === null ? 'validation.required' : 'validation.invalidValue'),
  })
  .transform((value) => value === true || value === 1 || value === '1' || value === 'true' || value === 'on');

/** A whole number that may arrive as a JSON number or a numeric string; missing, null or '' read as absent. */
function wholeNumber(min: number, max: number, message?: string) {
  return z.preprocess(
    (value) => (value === '' || value === null ? undefined : typeof value === 'string' ? Number(value.trim()) : value),
    message ? z.number().int(message).min(min, message).max(max, message) : z.number().int().min(min).max(max),
  );
}

const requiredText = (max: number) => z.string().trim().min(1).max(max);
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((value) => value ?? '');

export const emailSchema = z.string().trim().toLowerCase().min(1, { abort: true }).max(LIMITS.email).email('validation.email');
export const subsiteIdSchema = wholeNumber(0, 7, 'validation.subsite');
export const dialCodeSchema = z.string().trim().min(1).regex(/^\+?\d{1,4}$/, 'validation.dialCode');

const isTrue = (value: unknown): boolean => value === true || value === 1 || value === '1' || value === 'true' || value === 'on';

/** Terms must be accepted (spec §5); the form pre-checks and hides the box outside the main theme. */
const termsSchema = z
  .union([z.boolean(), z.number(), z.string(), z.null(), z.undefined()])
  .refine((value) => isTrue(value), 'validation.terms')
  .transform(() => true as const);

/** Both forms share these fields. */
const commonFields = {
  Imei: imeiSchema,
  userName: emailSchema,
  userPassword: passwordSchema,
  userPassword_confirmation: z.string().max(LIMITS.password),
  /** First and last name together (spec §5: at most 50). */
  fullName: z.string().trim().min(1).max(LIMITS.fullName, 'validation.fullName.tooLong'),
  contactPerson: requiredText(LIMITS.contactPerson),
  reseller: requiredText(LIMITS.reseller),
  comment: optionalText(LIMITS.comment),
  address: requiredText(LIMITS.street),
  zipCode: requiredText(LIMITS.postalCode),
  city: requiredText(LIMITS.city),
  country: requiredText(LIMITS.country),
  subsiteID: subsiteIdSchema,
  terms: termsSchema,
  /** The chosen payment option's 1-based position; 0 when none was offered or fetching them failed (spec §4). */
  paymentType: wholeNumber(0, 99, 'validation.paymentType').optional().transform((value) => value ?? 0),
};

type Issue = (path: string, message: string | null) => void;
/**
 * Cross-field rules run even when other fields already failed (zod's `when`), so a form shows every
 * problem at once. The partly parsed value is read defensively.
 */
function crossFieldRules(rules: (value: Record<string, unknown>, issue: Issue) => void) {
  return [
    (value: unknown, ctx: { addIssue(issue: { code: 'custom'; path: string[]; message: string }): void }) => {
      const issue: Issue = (path, message) => {
        if (message) ctx.addIssue({ code: 'custom', path: [path], message });
      };
      const record = value as Record<string, unknown>;
      if (typeof record.userPassword === 'string' && record.userPassword !== record.userPassword_confirmation) {
        issue('userPassword_confirmation', 'validation.password.mismatch');
      }
      rules(record, issue);
    },
    { when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null },
  ] as const;
}
const textOf = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** The step-by-step wizard (spec §2, §3). */
export const wizardRegistrationSchema = z
  .object({
    ...commonFields,
    /** The whole number with its dial code (`+46701234567`); see wizardPhoneProblem. */
    phone: z.string().max(64),
    countryDialCode: dialCodeSchema,
    /** Organisation number (companies) or personal number (private users in Sweden), dashes removed. */
    personal_org_number: optionalText(100),
    companyName: optionalText(LIMITS.company),
    /** Same as personal_org_number (kept for the legacy back office). */
    acc_company_phone: optionalText(100),
    is_private_account: flag,
  })
  .superRefine(
    ...crossFieldRules((value, issue) => {
      const dialCode = textOf(value.countryDialCode);
      if (typeof value.phone === 'string' && /^\+?\d{1,4}$/.test(dialCode)) issue('phone', wizardPhoneProblem(value.phone, dialCode));
      const number = textOf(value.personal_org_number);
      if (isTrue(value.is_private_account)) {
        // Spec §4: the personal-number step exists for private users in Sweden only.
        if (isSwedishDialCode(dialCode)) issue('personal_org_number', personalNumberProblem(number));
        else if (number.length > LIMITS.orgNumber) issue('personal_org_number', `validation.tooBig.string:${LIMITS.orgNumber}`);
      } else {
        if (textOf(value.companyName) === '') issue('companyName', 'validation.required');
        issue('personal_org_number', orgNumberProblem(number));
      }
    }),
  );

/** The old single form: company accounts only (spec §3). */
export const oldRegistrationSchema = z
  .object({
    ...commonFields,
    /** With its + prefix (`+46701234567`); see oldFormPhoneProblem. */
    phone: z
      .string()
      .max(64)
      .superRefine((value, ctx) => {
        const problem = oldFormPhoneProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    companyName: requiredText(LIMITS.company),
    /** The company's organisation number (the legacy field name). */
    acc_company_phone: z
      .string()
      .trim()
      .max(100)
      .superRefine((value, ctx) => {
        const problem = companyPhoneProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    is_private_account: z
      .union([z.literal(0), z.literal('0'), z.literal(false)], { error: 'validation.invalidValue' })
      .optional()
      .transform(() => false as const),
  })
  .superRefine(...crossFieldRules(() => {}));

export type WizardRegistrationInput = z.input<typeof wizardRegistrationSchema>;
export type OldRegistrationInput = z.input<typeof oldRegistrationSchema>;
export type WizardRegistration = z.output<typeof wizardRegistrationSchema>;
export type OldRegistration = z.output<typeof oldRegistrationSchema>;

/** What the server registers, whichever form sent it. */
export interface Registration {
  form: 'wizard' | 'old';
  imei: string;
  subsiteId: number;
  isPrivate: boolean;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  contactPerson: string;
  companyName: string;
  orgNumber: string;
  personalNumber: string;
  address: string;
  postalCode: string;
  city: string;
  country: string;
  phone: string;
  reseller: string;
  comment: string;
  paymentType: number;
}

/** "Anna Maria Svensson" with first name "Anna Maria" → last name "Svensson"; otherwise split at the first space. */
export function splitFullName(fullName: string, firstName = ''): { firstName: string; lastName: string } {
  const name = fullName.trim().replace(/\s+/g, ' ');
  const first = firstName.trim().replace(/\s+/g, ' ');
  if (first !== '' && name.toLowerCase().startsWith(first.toLowerCase())) {
    return { firstName: name.slice(0, first.length), lastName: name.slice(first.length).trim() };
  }
  const space = name.indexOf(' ');
  return space < 0 ? { firstName: name, lastName: '' } : { firstName: name.slice(0, space), lastName: name.slice(space + 1) };
}

export function toRegistration(input: WizardRegistration | OldRegistration, form: 'wizard' | 'old'): Registration {
  const common = {
    imei: input.Imei,
    subsiteId: input.subsiteID,
    email: input.userName,
    password: input.userPassword,
    contactPerson: input.contactPerson,
    address: input.address,
    postalCode: input.zipCode,
    city: input.city,
    country: input.country,
    reseller: input.reseller,
    paymentType: input.paymentType,
  };
  if (form === 'wizard') {
    const wizard = input as WizardRegistration;
    const number = wizard.personal_org_number.replaceAll('-', '');
    return {
      ...common,
      form,
      isPrivate: wizard.is_private_account,
      ...splitFullName(wizard.fullName, wizard.contactPerson),
      companyName: wizard.is_private_account ? '' : wizard.companyName,
      orgNumber: number,
      personalNumber: wizard.is_private_account ? number : '',
      phone: internationalPhone(wizard.phone, wizard.countryDialCode),
      comment: wizard.comment,
    };
  }
  const old = input as OldRegistration;
  return {
    ...common,
    form,
    isPrivate: false,
    ...splitFullName(old.fullName),
    companyName: old.companyName,
    orgNumber: old.acc_company_phone,
    personalNumber: '',
    phone: `+${compactPhone(old.phone).replace(/^\+/, '')}`,
    // Spec §3: the old form has a comment on sub-site 0 only.
    comment: old.subsiteID === 0 ? old.comment : '',
  };
}

/** The wizard sends the dial code and the personal/organisation number; the old form sends neither. */
export function isWizardPayload(input: unknown): boolean {
  return typeof input === 'object' && input !== null && ('countryDialCode' in input || 'personal_org_number' in input);
}

/**
 * POST /api/register accepts both payloads. Validation errors keep the payload's field names
 * (`Imei`, `userName`, `userPassword`, `phone`, …) so each form shows them under its own fields.
 */
export const registrationSchema = z.unknown().transform((input, ctx): Registration => {
  const form = isWizardPayload(input) ? 'wizard' : 'old';
  const result = (form === 'wizard' ? wizardRegistrationSchema : oldRegistrationSchema).safeParse(input);
  if (!result.success) {
    for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  }
  return toRegistration(result.data, form);
});

export const imeiQuerySchema = z.object({ imei: imeiSchema, subsiteID: subsiteIdSchema });
export const emailQuerySchema = z.object({ email: emailSchema });
export const paymentTypesSchema = z.object({ imei: imeiSchema, lang: z.enum(['sv', 'en', 'no']).optional() });

/** POST /api/payment-types: labelled options by 1-based position; the third carries the paper-invoice hint. */
export interface PaymentTypes {
  options: Record<string, string>;
  hints: Record<string, string>;
}

/** POST /api/register on success. */
export interface Registered {
  account_id: number;
  user_id: number;
  unit_id: number;
  message: string;
}

/**
 * Default purposes (spec §1, §2 account settings, §3 Default purpose, §5, §6): an account's named trip purposes that
 * the trip log offers besides free text.
 */
/** Spec §5/§9: a purpose is at most 100 characters. */
export const PURPOSE_NAME_MAX = 100;
export const PURPOSE_DESCRIPTION_MAX = 500;

export const purposeInputSchema = z.object({
  name: z.string().trim().min(1).max(PURPOSE_NAME_MAX),
  description: z
    .string()
    .trim()
    .max(PURPOSE_DESCRIPTION_MAX)
    .optional()
    .transform((value) => value ?? ''),
});
export type PurposeInput = z.output<typeof purposeInputSchema>;

export const purposeSettingsSchema = z.object({ usersMayCreate: z.boolean() });
export type PurposeSettingsInput = z.output<typeof purposeSettingsSchema>;

export const purposeIdParamsSchema = z.object({ id: z.coerce.number<unknown>().int().positive().max(2_147_483_647) });

export interface DefaultPurpose {
  id: number;
  name: string;
  description: string;
}

/** The account's default purposes (sorted by name) and what the caller may do with them. */
export interface PurposeCatalog {
  purposes: DefaultPurpose[];
  /** The account setting: ordinary users may create default purposes. */
  usersMayCreate: boolean;
  /** The caller may create a default purpose (an administrator, or anyone when the setting allows). */
  canCreate: boolean;
  /** The caller may edit, delete and change the setting (administrators). */
  canManage: boolean;
}

// ---------------------------------------------------------------------------------------------
// Account settings (spec §2 account settings, §3 Account, §5 limits, §6 switches)
// ---------------------------------------------------------------------------------------------

/** Spec §3 Unit fuel types; a market fuel price is kept for each. */
export const FUEL_TYPES = ['petrol', 'diesel', 'electricity', 'gas', 'other'] as const;
export type FuelType = (typeof FUEL_TYPES)[number];
/** Money in SEK or NOK by market (design: units of measure). */
export const FUEL_MARKETS = ['SE', 'NO'] as const;
export type FuelMarket = (typeof FUEL_MARKETS)[number];
export const MARKET_CURRENCY: Record<FuelMarket, 'SEK' | 'NOK'> = { SE: 'SEK', NO: 'NOK' };
/** A price per litre (or kWh) with two decimals; nobody pays a thousand a litre. */
export const FUEL_PRICE_MAX = 999.99;
export const ACCOUNT_LANGUAGES = ['sv', 'en', 'no'] as const;
export const INVOICE_TYPE_MAX = 100;

/** Spec §5: digits only, at least 8 (a leading + for the dial code); empty when the account has none. */
export function accountPhoneProblem(phone: string): string | null {
  const compact = compactPhone(phone);
  if (compact === '') return null;
  const digits = compact.replace(/^\+/, '');
  if (!/^\d+$/.test(digits)) return 'validation.phone.digits';
  if (digits.length < PHONE_MIN_DIGITS) return 'validation.phone.tooShort';
  if (digits.length > LIMITS.phoneDigits) return 'validation.phone.tooLong';
  return null;
}

/** A time zone name the runtime knows (IANA, e.g. Europe/Stockholm). */
export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(value);
  } catch {
    return false;
  }
}

/** Spec §3 Account with the §5 limits: the company details administrators keep. */
export const companyDetailsSchema = z
  .object({
    companyName: optionalText(LIMITS.company),
    contactPerson: optionalText(LIMITS.contactPerson),
    address: optionalText(LIMITS.street),
    postalCode: optionalText(LIMITS.postalCode),
    city: optionalText(LIMITS.city),
    country: optionalText(LIMITS.country),
    orgNumber: optionalText(LIMITS.orgNumber),
    phone: optionalText(LIMITS.phoneDigits + 10),
    invoiceType: optionalText(INVOICE_TYPE_MAX),
    reseller: optionalText(LIMITS.reseller),
  })
  .superRefine((value, context) => {
    const phone = accountPhoneProblem(value.phone);
    if (phone) context.addIssue({ code: 'custom', path: ['phone'], message: phone });
  });
export type CompanyDetails = z.output<typeof companyDetailsSchema>;

export const fuelPriceSchema = z.object({
  market: z.enum(FUEL_MARKETS),
  fuelType: z.enum(FUEL_TYPES),
  /** Per litre (kWh for electricity) in the market's currency; two decimals. */
  price: z
    .number()
    .min(0, 'settings.fuelPrice.range')
    .max(FUEL_PRICE_MAX, 'settings.fuelPrice.range')
    .transform((value) => Math.round(value * 100) / 100),
});
export type FuelPrice = z.output<typeof fuelPriceSchema>;

/** The whole settings screen is saved at once: all of it, or (on any error) nothing. */
export const accountSettingsSchema = z
  .object({
    company: companyDetailsSchema,
    fuelPrices: z.array(fuelPriceSchema).max(FUEL_MARKETS.length * FUEL_TYPES.length),
    language: z.enum(ACCOUNT_LANGUAGES),
    timezone: z.string().trim().min(1).max(64).refine(isTimeZone, 'settings.timezone.invalid'),
    usersMayCreatePurposes: z.boolean(),
    usersMayCreateProjects: z.boolean(),
    qrCheckinWithoutAccess: z.boolean(),
  })
  .superRefine((value, context) => {
    const seen = new Set<string>();
    value.fuelPrices.forEach((price, index) => {
      const key = `${price.market}:${price.fuelType}`;
      if (seen.has(key)) context.addIssue({ code: 'custom', path: ['fuelPrices', index, 'fuelType'], message: 'settings.fuelPrice.duplicate' });
      seen.add(key);
    });
  });
export type AccountSettingsInput = z.output<typeof accountSettingsSchema>;

/** Spec §6: a user and whether an administrator denied them changing report frequency. */
export interface FrequencyPermissionView {
  userId: number;
  name: string;
  email: string;
  role: string;
  denied: boolean;
}

export interface AccountSettingsView extends AccountSettingsInput {
  /** The market the account's prices are shown in first (its country's). */
  market: FuelMarket;
  /** Who may change report frequency (spec §6: per user; denied users may not). */
  reportFrequency: FrequencyPermissionView[];
  updatedAt: string | null;
}

// ---------------------------------------------------------------------------------------------
// Bulk tasks on users (spec §2 bulk tasks, §5: at least one user; §6 unit access)
// ---------------------------------------------------------------------------------------------

export const USER_BULK_TASKS = ['department', 'realtimeMap', 'twoFactor', 'unitAccess'] as const;
export type UserBulkTaskKind = (typeof USER_BULK_TASKS)[number];
/** How many users one bulk request may name (the web app sends larger selections in slices and shows the progress). */
export const USER_BULK_MAX = 200;
const userBulkId = () => z.coerce.number<unknown>().int().positive().max(2_147_483_647);

export const userBulkTaskSchema = z.discriminatedUnion('kind', [
  /** Spec §6: a new department resets the user's unit access. */
  z.object({ kind: z.literal('department'), departmentId: userBulkId().nullable() }),
  z.object({ kind: z.literal('realtimeMap'), enabled: z.boolean() }),
  z.object({ kind: z.literal('twoFactor'), enabled: z.boolean() }),
  z.object({
    kind: z.literal('unitAccess'),
    unitIds: z
      .array(userBulkId())
      .min(1, 'units.bulk.none')
      .max(20_000)
      .transform((ids) => [...new Set(ids)]),
    mode: z.enum(['add', 'remove']).default('add'),
  }),
]);
export type UserBulkTask = z.output<typeof userBulkTaskSchema>;

export const userBulkSchema = z.object({
  userIds: z
    .array(userBulkId())
    .min(1, 'users.bulk.none')
    .max(USER_BULK_MAX)
    .transform((ids) => [...new Set(ids)]),
  task: userBulkTaskSchema,
});

export interface UserBulkResult {
  results: Array<{ userId: number; ok: boolean; error: string | null }>;
}

// Bulk tasks as queued jobs: `POST /api/admin/bulk-jobs` starts one, `GET /api/admin/bulk-jobs/:jobId` follows it.

/** How many users or units one bulk job may name. */
export const BULK_JOB_MAX = 20_000;

export const bulkJobCreateSchema = z.discriminatedUnion('target', [
  z.object({
    target: z.literal('users'),
    ids: z.array(userBulkId()).min(1, 'users.bulk.none').max(BULK_JOB_MAX).transform((ids) => [...new Set(ids)]),
    task: userBulkTaskSchema,
  }),
  z.object({
    target: z.literal('units'),
    ids: z.array(userBulkId()).min(1, 'units.bulk.none').max(BULK_JOB_MAX).transform((ids) => [...new Set(ids)]),
    task: bulkTaskSchema,
  }),
]);
export type BulkJobCreate = z.output<typeof bulkJobCreateSchema>;

export const bulkJobParamsSchema = z.object({ jobId: userBulkId() });

export interface BulkJobView {
  id: number;
  target: 'users' | 'units';
  status: 'queued' | 'running' | 'done' | 'failed';
  total: number;
  done: number;
  failed: number;
  /** One per record handled so far, in the order they ran. */
  results: Array<{ id: number; ok: boolean; error: string | null; pending?: boolean }>;
  /** Why the whole job stopped (its starter lost the right to run it), translated. */
  error: string | null;
}

/** A user of the account by name (pickers on the administration screens). */
export interface AccountUserRef {
  id: number;
  name: string;
  email: string;
  role: string;
}

// --- User administration (issue 19) ----------------------------------------------------------------------
/** User administration (spec §2 /administration/user-accounts, §3 User, §5, §6). Shared with the web app. */

/** Spec §5: first and last name together at most 50 characters. */
export const NAMES_MAX = 50;
/** Invitation links are valid this long and can be sent again. */
export const INVITATION_MS = 7 * 24 * 60 * 60 * 1000;

/** Spec §5 phone: digits only, at least 8; a Swedish number not beginning with 46 or 0. Empty: no phone. */
export function userPhoneProblem(phone: string): string | null {
  if (phone === '') return null;
  if (!/^\d+$/.test(phone)) return 'validation.phone.digits';
  if (phone.length < 8) return 'validation.phone.tooShort';
  if (phone.length > 15) return 'validation.phone.tooLong';
  if (phone.startsWith('46') || phone.startsWith('0')) return 'validation.phone.prefix';
  return null;
}

const userFields = {
  firstName: z.string().trim().min(1, 'validation.firstName.required').max(NAMES_MAX),
  lastName: z.string().trim().max(NAMES_MAX).default(''),
  email: z.string().trim().toLowerCase().max(254).email('validation.email'),
  phone: z
    .string()
    .trim()
    .default('')
    .transform((value) => value.replace(/[\s()-]/g, ''))
    .superRefine((value, context) => {
      const problem = userPhoneProblem(value);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
  isAdmin: z.boolean().default(false),
  departmentId: z.number().int().positive().nullable().default(null),
  userGroup: z.string().trim().max(50).default(''),
  realtimeMap: z.boolean().default(true),
  twoFactor: z.boolean().default(false),
  language: z.enum(['sv', 'en', 'no']).default('sv'),
};

const namesTogether = (value: { firstName: string; lastName: string }) => `${value.firstName} ${value.lastName}`.trim().length <= NAMES_MAX;

export const userCreateSchema = z
  .object(userFields)
  .refine(namesTogether, { path: ['lastName'], message: 'validation.fullName.tooLong' });
export type UserCreate = z.infer<typeof userCreateSchema>;

export const userUpdateAdminSchema = z
  .object({ ...userFields, language: userFields.language.optional() })
  .refine(namesTogether, { path: ['lastName'], message: 'validation.fullName.tooLong' });
export type UserAdminUpdate = z.infer<typeof userUpdateAdminSchema>;

export const adminUserParamsSchema = z.object({ userId: z.coerce.number().int().positive() });
export const adminSessionParamsSchema = z.object({ userId: z.coerce.number().int().positive(), sessionId: z.string().uuid() });

export const USER_SORTS = ['name', 'email', 'role', 'department', 'lastLogin', 'status'] as const;
export const USER_STATUSES = ['active', 'invited'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export const userListQuerySchema = z.object({
  q: queryText(100).default(''),
  role: z.enum(['admin', 'user']).optional(),
  departmentId: z.coerce.number().int().positive().optional(),
  status: z.enum(USER_STATUSES).optional(),
  sort: z.enum(USER_SORTS).default('name'),
  dir: z.enum(['asc', 'desc']).default('asc'),
});
export type UserListQuery = z.infer<typeof userListQuerySchema>;

export const invitationAcceptSchema = z
  .object({
    code: z.string().trim().min(1, 'validation.reset.codeMissing').max(128),
    password: passwordSchema,
    password_confirmation: z.string(),
  })
  .refine((value) => value.password === value.password_confirmation, { path: ['password_confirmation'], message: 'validation.password.mismatch' });

/** One row of the user table. */
export interface AdminUserRow {
  id: number;
  firstName: string;
  lastName: string;
  fullName: string;
  email: string;
  phone: string;
  role: 'admin' | 'user' | 'support' | 'reseller';
  isAdmin: boolean;
  departmentId: number | null;
  department: string | null;
  userGroup: string;
  unitsVisible: number | null;
  realtimeMap: boolean;
  twoFactor: boolean;
  language: 'sv' | 'en' | 'no';
  lastLogin: string | null;
  status: UserStatus;
}

export interface AdminSession {
  id: string;
  userAgent: string;
  createdAt: string;
  expiresAt: string;
  current: boolean;
}
