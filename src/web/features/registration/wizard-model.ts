import {
  compactPhone,
  LIMITS,
  normalizeDialCode,
  type WizardRegistrationInput,
  wizardRegistrationSchema,
} from '../../../modules/accounts/model';
import { translateMessage } from '../../lib/i18n';
import { countryByCode, countryName, DEFAULT_COUNTRY } from './countries';

/** Everything the wizard collects (spec §2 wizard steps). */
export interface WizardData {
  userType: 'company' | 'private' | '';
  countryCode: string;
  dialCode: string;
  imei: string;
  reseller: string;
  comment: string;
  companyName: string;
  firstName: string;
  lastName: string;
  email: string;
  /** Organisation number (companies) or personal number (private users in Sweden). */
  number: string;
  street: string;
  postalCode: string;
  city: string;
  addressCountryCode: string;
  /** The national part, typed after the dial code. */
  phone: string;
  password: string;
  confirmation: string;
  /** 1-based position of the chosen payment option; 0 for none. */
  paymentType: number;
  terms: boolean;
}

export function emptyWizardData(termsPreChecked: boolean): WizardData {
  const country = countryByCode(DEFAULT_COUNTRY);
  return {
    userType: '',
    countryCode: country.code,
    dialCode: country.dial,
    imei: '',
    reseller: '',
    comment: '',
    companyName: '',
    firstName: '',
    lastName: '',
    email: '',
    number: '',
    street: '',
    postalCode: '',
    city: '',
    addressCountryCode: country.code,
    phone: '',
    password: '',
    confirmation: '',
    paymentType: 0,
    terms: termsPreChecked,
  };
}

export type StepId =
  | 'welcome'
  | 'country'
  | 'imei'
  | 'reseller'
  | 'company'
  | 'name'
  | 'email'
  | 'number'
  | 'address'
  | 'phone'
  | 'password'
  | 'review';

/** Spec §2: every step in order. */
export const ALL_STEPS: StepId[] = ['welcome', 'country', 'imei', 'reseller', 'company', 'name', 'email', 'number', 'address', 'phone', 'password', 'review'];

export const isPrivate = (data: WizardData) => data.userType === 'private';
export const isSweden = (data: WizardData) => normalizeDialCode(data.dialCode) === '46';

/**
 * Spec §4 step filtering: companies skip the personal number (their number step asks for the organisation
 * number); private users skip the company name and organisation number, and the personal number unless
 * the country is Sweden.
 */
export function visibleSteps(data: WizardData): StepId[] {
  return ALL_STEPS.filter((step) => {
    if (step === 'company') return !isPrivate(data);
    if (step === 'number') return !isPrivate(data) || isSweden(data);
    return true;
  });
}

/** The payload fields each step fills; step validation keeps the shared schema's issues for these only. */
export const STEP_FIELDS: Record<StepId, string[]> = {
  welcome: ['userType'],
  country: ['countryDialCode'],
  imei: ['Imei'],
  reseller: ['reseller', 'comment'],
  company: ['companyName'],
  name: ['contactPerson', 'lastName', 'fullName'],
  email: ['userName'],
  number: ['personal_org_number'],
  address: ['address', 'zipCode', 'city', 'country'],
  phone: ['phone'],
  password: ['userPassword', 'userPassword_confirmation'],
  review: ['terms', 'paymentType', 'subsiteID'],
};

/** Which step shows a payload field's error (server field errors land on their step). */
export function stepOfField(field: string): StepId | null {
  for (const step of ALL_STEPS) if (STEP_FIELDS[step].includes(field)) return step;
  return null;
}

export function fullName(data: WizardData): string {
  return `${data.firstName.trim()} ${data.lastName.trim()}`.trim();
}

/** Spec §9 name-length warning: first and last name together at most 50 characters. */
export function nameTooLong(data: WizardData): boolean {
  return fullName(data).length > LIMITS.fullName;
}

/** The wizard payload of spec §3, exactly as POST /api/register takes it. */
export function wizardPayload(data: WizardData, subsiteId: number): WizardRegistrationInput {
  const number = data.number.trim().replaceAll('-', '');
  const dial = normalizeDialCode(data.dialCode);
  const national = compactPhone(data.phone).replace(/^\+/, '');
  return {
    Imei: data.imei.trim(),
    personal_org_number: isPrivate(data) && !isSweden(data) ? '' : number,
    address: data.street,
    city: data.city,
    zipCode: data.postalCode,
    comment: data.comment,
    companyName: isPrivate(data) ? '' : data.companyName,
    contactPerson: data.firstName,
    country: countryName(data.addressCountryCode, 'en'),
    fullName: fullName(data),
    paymentType: data.paymentType,
    phone: national === '' ? '' : `+${dial}${national}`,
    reseller: data.reseller,
    subsiteID: subsiteId,
    terms: data.terms ? 1 : 0,
    userName: data.email,
    userPassword: data.password,
    userPassword_confirmation: data.confirmation,
    is_private_account: isPrivate(data) ? 1 : 0,
    acc_company_phone: isPrivate(data) && !isSweden(data) ? '' : number,
    countryDialCode: dial,
  };
}

export type StepErrors = Record<string, string>;

/**
 * Validates one step with the same zod schema the server runs (plus the two wizard-only rules: a user type
 * is chosen and a last name is given), keeping only the issues of that step's fields.
 */
export function validateStep(step: StepId, data: WizardData, subsiteId: number): StepErrors {
  const errors: StepErrors = {};
  if (step === 'welcome') {
    if (data.userType === '') errors.userType = translateMessage('registration.wizard.chooseType');
    return errors;
  }
  if (step === 'name' && data.lastName.trim() === '') errors.lastName = translateMessage('validation.required');
  const fields = STEP_FIELDS[step];
  const parsed = wizardRegistrationSchema.safeParse(wizardPayload(data, subsiteId));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? '');
      if (fields.includes(field) && !(field in errors)) errors[field] = translateMessage(issue.message);
    }
  }
  return errors;
}

export function stepIsValid(step: StepId, data: WizardData, subsiteId: number): boolean {
  return Object.keys(validateStep(step, data, subsiteId)).length === 0;
}
