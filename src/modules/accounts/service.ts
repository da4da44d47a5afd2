import { eq } from 'drizzle-orm';
import { uniqueViolation } from '../../lib/db/errors';
import { AppError, fieldError } from '../../lib/http';
import { type Language, translate } from '../../lib/i18n';
import type { Platform } from '../../lib/platform';
import { hashPassword } from '../../lib/password';
import type { BrandService } from '../brands/service';
import { PAPER_INVOICE_POSITION } from '../units/model';
import type { UnitService } from '../units/service';
import type { PaymentTypes, Registered, Registration } from './model';
import { claimLoginEmailWith, LOGIN_EMAIL_TAKEN } from './login-emails';
import { accounts, users } from './schema';
import { findUserByEmail } from './users';

/** The account catalogues (departments, projects, tags, feature profiles) other modules file things under. */
export type { CatalogOptions, CatalogRefKind, CatalogService } from './catalog';

/** The users' read and credential API other modules use (auth signs users in; units and trips name them). */
export type { AccountRow } from './schema';
export { actorOf, findAccountById, findUserByEmail, findUserById, sessionUserOf, updateUserCredentials, type UserCredentials, type UserWithAccount } from './users';

/** Registration failures keyed by payload field (spec §8: under Imei, userName, userPassword, phone). */
function registrationFailed(fields: Record<string, string[]>): AppError {
  return new AppError(422, 'registration.failed', { fields });
}

/**
 * Self-registration (spec §2 wizard and old form, §5 rules, §7 calls): one transaction creates the account,
 * its administrator and the unit of the registered tracker, or nothing at all.
 */
export function createAccountService(platform: Platform, units: UnitService, brands: BrandService) {
  const { database, clock, events } = platform;
  const db = database.db;

  return {
    async register(input: Registration, language: Language): Promise<Registered> {
      // Sub-site ids 0-7 are brands in the data; a removed brand row must not turn into a foreign-key 500.
      await brands.get(input.subsiteId).catch((error: unknown) => {
        throw error instanceof AppError && error.status === 404 ? fieldError('subsiteID', 'validation.subsite') : error;
      });
      // Hashing is slow on purpose; do it before the transaction holds its locks.
      const passwordHash = await hashPassword(input.password);
      const now = clock.now();
      let created: { accountId: number; userId: number; unitId: number };
      try {
        created = await db.transaction(async (tx) => {
          const problems: Record<string, string[]> = {};
          const imei = await units.checkImei(input.imei, input.subsiteId, { executor: tx, lock: true });
          if (!imei.ok) problems.Imei = [imei.reason];
          const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.email, input.email)).limit(1);
          if (taken) problems.userName = ['validation.email.taken'];
          if (imei.ok && input.paymentType > imei.stock.paymentTypes.length) problems.paymentType = ['validation.paymentType'];
          if (!imei.ok || Object.keys(problems).length > 0) throw registrationFailed(problems);
          const { stock } = imei;

          const [account] = await tx
            .insert(accounts)
            .values({
              subsiteId: input.subsiteId,
              isPrivate: input.isPrivate,
              companyName: input.companyName,
              contactPerson: input.contactPerson,
              address: input.address,
              postalCode: input.postalCode,
              city: input.city,
              country: input.country,
              orgNumber: input.orgNumber,
              phone: input.phone,
              reseller: input.reseller,
              comment: input.comment,
              paymentType: input.paymentType,
              invoiceType: input.paymentType > 0 ? (stock.paymentTypes[input.paymentType - 1] ?? '') : '',
              createdAt: now,
            })
            .returning({ id: accounts.id });
          const accountId = account!.id;
          const [user] = await tx
            .insert(users)
            .values({
              accountId,
              email: input.email,
              passwordHash,
              firstName: input.firstName,
              lastName: input.lastName,
              phone: input.phone,
              personalNumber: input.personalNumber,
              role: 'admin',
              language,
              createdAt: now,
            })
            .returning({ id: users.id });
          await claimLoginEmailWith(tx, { userId: user!.id, accountId }, input.email);
          const unitId = await units.createFromStock(tx, { accountId, stock, createdAt: now });
          return { accountId, userId: user!.id, unitId };
        });
      } catch (error) {
        // Two registrations raced past the checks: the unique indexes decide, and the loser hears why.
        const constraint = uniqueViolation(error);
        if (constraint === LOGIN_EMAIL_TAKEN) throw registrationFailed({ userName: ['validation.email.taken'] });
        if (constraint === 'units_imei') throw registrationFailed({ Imei: ['registration.imei.taken'] });
        throw error;
      }
      await events.emit('user.registered', created);
      return {
        account_id: created.accountId,
        user_id: created.userId,
        unit_id: created.unitId,
        message: translate(language, 'registration.success'),
      };
    },

    /** Spec §7 IMEI validator: 15 digits, in stock for this sub-site, not already a unit. */
    async validateImei(imei: string, subsiteId: number): Promise<{ imei: string; model: string }> {
      const check = await units.checkImei(imei, subsiteId);
      if (!check.ok) throw fieldError('imei', check.reason);
      return { imei, model: check.stock.model };
    },

    /** Spec §7 e-mail validator: valid, lower-cased, not already in use. */
    async validateEmail(email: string): Promise<{ email: string }> {
      if (await findUserByEmail(db, email)) throw fieldError('email', 'validation.email.taken');
      return { email };
    },

    /**
     * Spec §3 payment types: the tracker's options as labels by 1-based position (the value the form sends
     * back as paymentType); the third carries the hint that a paper invoice is sent without an e-invoice address.
     */
    async paymentTypes(imei: string, language: Language): Promise<PaymentTypes> {
      const keys = await units.paymentTypeKeys(imei);
      const options: Record<string, string> = {};
      keys.forEach((key, index) => {
        options[String(index + 1)] = translate(language, key);
      });
      const hints: Record<string, string> = {};
      if (keys.length >= PAPER_INVOICE_POSITION) hints[String(PAPER_INVOICE_POSITION)] = translate(language, 'payment.paperInvoiceHint');
      return { options, hints };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
