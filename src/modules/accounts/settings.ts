import { and, asc, eq, inArray } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { forbidden, notFound, ok } from '../../lib/http';
import type { Platform } from '../../lib/platform';
import type { AuditEntry } from '../audit/events';
import { authGuard, requireActor } from '../auth';
import type { Actor } from '../auth/model';
import type { AuthService } from '../auth/service';
import type { UnitService } from '../units/service';
import {
  type AccountSettingsInput,
  type AccountSettingsView,
  accountSettingsSchema,
  type CompanyDetails,
  FUEL_MARKETS,
  FUEL_TYPES,
  type FuelMarket,
  type FuelPrice,
  type FuelType,
} from './model';
import { accountFuelPrices, accountSettings, accounts, users } from './schema';

/** What an account without a settings row has. */
const DEFAULTS = { language: 'sv' as const, timezone: 'Europe/Stockholm', usersMayCreateProjects: false, qrCheckinWithoutAccess: false };

/** The market an account's prices are shown in first: Norway's accounts pay in NOK, the others in SEK. */
export function marketOf(country: string): FuelMarket {
  return /^(no|nor|norge|norway|noreg)$/i.test(country.trim()) ? 'NO' : 'SE';
}

const COMPANY_FIELDS = ['companyName', 'contactPerson', 'address', 'postalCode', 'city', 'country', 'orgNumber', 'phone', 'invoiceType', 'reseller'] as const;

/**
 * Account settings (spec §2 account settings, §3 Account, §5, §6): the company details, market fuel prices, the account's
 * language and time zone and the administrators' switches. One screen saves it all in one transaction with its audit
 * entry; the other modules read the parts they need through this service (fuel prices for reports, defaults for new
 * users and alarm texts, the QR check-in switch for the trip log).
 */
export function createAccountSettingsService(platform: Platform, units: UnitService) {
  const { database, clock, outbox } = platform;
  const db = database.db;

  const requireAdmin = (actor: Actor) => {
    if (actor.role !== 'admin') throw forbidden();
  };

  async function settingsRow(accountId: number) {
    const [row] = await db.select().from(accountSettings).where(eq(accountSettings.accountId, accountId));
    return row ?? null;
  }

  async function fuelPrices(accountId: number): Promise<FuelPrice[]> {
    const rows = await db
      .select({ market: accountFuelPrices.market, fuelType: accountFuelPrices.fuelType, price: accountFuelPrices.price })
      .from(accountFuelPrices)
      .where(eq(accountFuelPrices.accountId, accountId));
    const order = (price: { market: FuelMarket; fuelType: FuelType }) => FUEL_MARKETS.indexOf(price.market) * 10 + FUEL_TYPES.indexOf(price.fuelType);
    return rows.map((row) => ({ ...row, price: Number(row.price) })).sort((a, b) => order(a) - order(b));
  }

  async function usersMayCreatePurposes(accountId: number): Promise<boolean> {
    const [row] = await database.query<{ users_may_create: boolean }>('SELECT users_may_create FROM purpose_settings WHERE account_id = $1', [accountId]);
    return row?.users_may_create === true;
  }

  async function view(actor: Actor): Promise<AccountSettingsView> {
    const [account] = await db.select().from(accounts).where(eq(accounts.id, actor.accountId));
    if (!account) throw notFound('errors.notFound');
    const [row, prices, purposes, denied, people] = await Promise.all([
      settingsRow(actor.accountId),
      fuelPrices(actor.accountId),
      usersMayCreatePurposes(actor.accountId),
      units.frequencyDenials(actor),
      db
        .select({ id: users.id, firstName: users.firstName, lastName: users.lastName, email: users.email, role: users.role })
        .from(users)
        .where(and(eq(users.accountId, actor.accountId), inArray(users.role, ['admin', 'user'])))
        .orderBy(asc(users.lastName), asc(users.firstName), asc(users.id)),
    ]);
    const deniedSet = new Set(denied);
    const company = Object.fromEntries(COMPANY_FIELDS.map((field) => [field, account[field]])) as CompanyDetails;
    return {
      company,
      fuelPrices: prices,
      language: row?.language ?? DEFAULTS.language,
      timezone: row?.timezone ?? DEFAULTS.timezone,
      usersMayCreatePurposes: purposes,
      usersMayCreateProjects: row?.usersMayCreateProjects ?? DEFAULTS.usersMayCreateProjects,
      qrCheckinWithoutAccess: row?.qrCheckinWithoutAccess ?? DEFAULTS.qrCheckinWithoutAccess,
      market: marketOf(account.country),
      reportFrequency: people.map((person) => ({
        userId: person.id,
        name: `${person.firstName} ${person.lastName}`.trim() || person.email,
        email: person.email,
        role: person.role,
        denied: deniedSet.has(person.id),
      })),
      updatedAt: row ? row.updatedAt.toISOString() : null,
    };
  }

  /** Field by field, what a save changed (for the audit entry). */
  function changesBetween(before: AccountSettingsView, after: AccountSettingsInput): AuditEntry['changes'] {
    const changes: NonNullable<AuditEntry['changes']> = {};
    for (const field of COMPANY_FIELDS) {
      if (before.company[field] !== after.company[field]) changes[`company.${field}`] = { from: before.company[field], to: after.company[field] };
    }
    for (const field of ['language', 'timezone', 'usersMayCreatePurposes', 'usersMayCreateProjects', 'qrCheckinWithoutAccess'] as const) {
      if (before[field] !== after[field]) changes[field] = { from: before[field], to: after[field] };
    }
    const priceOf = (list: FuelPrice[], market: FuelMarket, fuelType: FuelType) => list.find((price) => price.market === market && price.fuelType === fuelType)?.price ?? null;
    for (const market of FUEL_MARKETS) {
      for (const fuelType of FUEL_TYPES) {
        const from = priceOf(before.fuelPrices, market, fuelType);
        const to = priceOf(after.fuelPrices, market, fuelType);
        if (from !== to) changes[`fuelPrice.${market}.${fuelType}`] = { from, to };
      }
    }
    return changes;
  }

  return {
    /** The settings screen (administrators). */
    async get(actor: Actor): Promise<AccountSettingsView> {
      requireAdmin(actor);
      return view(actor);
    },

    /** Saves the whole screen: every part and its audit entry in one transaction, or nothing. */
    async save(actor: Actor, input: AccountSettingsInput): Promise<AccountSettingsView> {
      requireAdmin(actor);
      const before = await view(actor);
      const at = clock.now();
      await database.transaction(async (query) => {
        const c = input.company;
        await query(
          `UPDATE accounts SET company_name = $2, contact_person = $3, address = $4, postal_code = $5, city = $6, country = $7,
             org_number = $8, phone = $9, invoice_type = $10, reseller = $11 WHERE id = $1`,
          [actor.accountId, c.companyName, c.contactPerson, c.address, c.postalCode, c.city, c.country, c.orgNumber, c.phone, c.invoiceType, c.reseller],
        );
        await query(
          `INSERT INTO account_settings (account_id, language, timezone, users_may_create_projects, qr_checkin_without_access, updated_by, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz)
           ON CONFLICT (account_id) DO UPDATE SET language = excluded.language, timezone = excluded.timezone,
             users_may_create_projects = excluded.users_may_create_projects, qr_checkin_without_access = excluded.qr_checkin_without_access,
             updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
          [actor.accountId, input.language, input.timezone, input.usersMayCreateProjects, input.qrCheckinWithoutAccess, actor.userId, at.toISOString()],
        );
        await query(
          `INSERT INTO purpose_settings (account_id, users_may_create, changed_by, changed_at) VALUES ($1, $2, $3, $4::timestamptz)
           ON CONFLICT (account_id) DO UPDATE SET users_may_create = excluded.users_may_create, changed_by = excluded.changed_by, changed_at = excluded.changed_at`,
          [actor.accountId, input.usersMayCreatePurposes, actor.userId, at.toISOString()],
        );
        // The prices sent are the account's prices: one left out is no longer set.
        await query('DELETE FROM account_fuel_prices WHERE account_id = $1', [actor.accountId]);
        for (const price of input.fuelPrices) {
          await query('INSERT INTO account_fuel_prices (account_id, market, fuel_type, price, updated_at) VALUES ($1, $2, $3, $4, $5::timestamptz)', [
            actor.accountId,
            price.market,
            price.fuelType,
            price.price.toFixed(2),
            at.toISOString(),
          ]);
        }
        const changes = changesBetween(before, input);
        if (changes && Object.keys(changes).length > 0) {
          await outbox.publish(query, 'audit.entry', {
            accountId: actor.accountId,
            actorUserId: actor.userId,
            action: 'settings.updated',
            target: { kind: 'account', id: actor.accountId, label: input.company.companyName || before.company.companyName },
            changes,
            at: at.toISOString(),
          });
        }
      });
      return view(actor);
    },

    // --- for other modules ----------------------------------------------------------------------

    /** The account's market fuel prices (the reports' benefit and reimbursement figures), in the market's currency. */
    fuelPrices,

    /** One fuel price of the account, or null when the administrators have not set it. */
    async fuelPrice(accountId: number, market: FuelMarket, fuelType: FuelType): Promise<number | null> {
      return (await fuelPrices(accountId)).find((price) => price.market === market && price.fuelType === fuelType)?.price ?? null;
    },

    /** The language and time zone new users of the account start with, and alarm texts are written in. */
    async defaults(accountId: number): Promise<{ language: 'sv' | 'en' | 'no'; timezone: string }> {
      const row = await settingsRow(accountId);
      return { language: row?.language ?? DEFAULTS.language, timezone: row?.timezone ?? DEFAULTS.timezone };
    },

    /** Spec §6: whether the account lets users check in by QR code on units they have no access to. */
    async qrCheckinWithoutAccess(accountId: number): Promise<boolean> {
      return (await settingsRow(accountId))?.qrCheckinWithoutAccess ?? false;
    },

    /** Spec §6: whether ordinary users of the account may create projects. */
    async usersMayCreateProjects(accountId: number): Promise<boolean> {
      return (await settingsRow(accountId))?.usersMayCreateProjects ?? false;
    },
  };
}

export type AccountSettingsService = ReturnType<typeof createAccountSettingsService>;

const bearer = [{ bearer: [] }];

export function accountSettingsRoutes(settings: AccountSettingsService, auth: AuthService) {
  return new Elysia({ prefix: '/api', tags: ['account settings'] })
    .use(authGuard(auth))
    .get('/admin/account-settings', async ({ actor }) => ok(await settings.get(requireActor(actor))), {
      detail: { summary: "The account's settings: company details, market fuel prices, language, time zone and switches (administrators)", security: bearer },
    })
    .post('/admin/account-settings', async ({ actor, body }) => ok(await settings.save(requireActor(actor), body)), {
      body: accountSettingsSchema,
      detail: { summary: 'Save the account settings at once, audited (administrators)', security: bearer },
    });
}
