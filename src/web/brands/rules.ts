import type { Brand } from '../../modules/brands/model';

/**
 * The few per-brand rules the spec states by sub-site rather than by a brand field. They live here, in one
 * place, so components ask a question instead of naming a brand.
 */

/** Spec §4: the review step fetches payment options for private users on sub-site 0. */
const PAYMENT_OPTION_SUBSITES: readonly number[] = [0];
export function offersPaymentOptions(brand: Brand, isPrivate: boolean): boolean {
  return isPrivate && PAYMENT_OPTION_SUBSITES.includes(brand.subsiteId);
}

/** Spec §3: the old registration form has a comment field on sub-site 0 only. */
const OLD_FORM_COMMENT_SUBSITES: readonly number[] = [0];
export function oldFormHasComment(brand: Brand): boolean {
  return OLD_FORM_COMMENT_SUBSITES.includes(brand.subsiteId);
}

/** Spec §2: registration follows the login design: the wizard with the new design, the single form with the old. */
export function usesRegistrationWizard(brand: Brand): boolean {
  return brand.loginDesign === 'new';
}
