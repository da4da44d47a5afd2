import { Elysia } from 'elysia';
import { z } from '../../lib/validation';
import { requestLanguage } from '../../lib/api';
import { ok } from '../../lib/http';
import {
  emailQuerySchema,
  imeiQuerySchema,
  oldRegistrationSchema,
  paymentTypesSchema,
  registrationSchema,
  wizardRegistrationSchema,
} from './model';
import { type AccountService, createAccountService } from './service';
import { createPurposeService, purposeRoutes } from './purposes';
import { catalogRoutes, createCatalogService } from './catalog';
import { accountSettingsRoutes, createAccountSettingsService } from './settings';
import { createUserBulkService, userBulkRoutes } from './bulk';
import type { AuthService } from '../auth/service';
import type { BrandService } from '../brands/service';
import type { UnitService } from '../units/service';
import { defineModule } from '../../composition';
import { authGuard } from '../auth';
import { createUserAdmin, type UserAdmin } from './user-admin';
import { createCustomerAccounts, type CustomerAccounts } from './customer-accounts';
import {
  adminSessionParamsSchema,
  adminUserParamsSchema,
  invitationAcceptSchema,
  userCreateSchema,
  userListQuerySchema,
  userUpdateAdminSchema,
} from './model';

const security = [{ bearer: [] }];

export { createPurposeService, purposeRoutes, type PurposeService } from './purposes';

/** The register body accepts either form; the OpenAPI document shows both. */
const registrationBody = registrationSchema.meta({
  oneOf: [wizardRegistrationSchema, oldRegistrationSchema].map((schema) => {
    const { $schema: _, ...document } = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' });
    return document;
  }),
});

/** Public registration calls (spec §7): no token needed. */
export function accountRoutes(accounts: AccountService) {
  return new Elysia({ prefix: '/api', tags: ['registration'] })
    .post(
      '/register',
      async ({ body, request }) => {
        const language = requestLanguage(request.headers);
        const registered = await accounts.register(body, language);
        return { ...ok(registered), message: registered.message };
      },
      {
        body: registrationBody,
        detail: { summary: 'Register an account, its administrator and the unit of a tracker in stock (wizard or old form)' },
      },
    )
    .get('/validate/imei', async ({ query }) => ok(await accounts.validateImei(query.imei, query.subsiteID)), {
      query: imeiQuerySchema,
      detail: { summary: 'Check an IMEI: 15 digits, in stock for the sub-site, not in use' },
    })
    .get('/validate/email', async ({ query }) => ok(await accounts.validateEmail(query.email)), {
      query: emailQuerySchema,
      detail: { summary: 'Check an e-mail address: valid and not in use (answers it lower-cased)' },
    })
    .post(
      '/payment-types',
      async ({ body, request }) => ok(await accounts.paymentTypes(body.imei, body.lang ?? requestLanguage(request.headers))),
      {
        body: paymentTypesSchema,
        detail: { summary: "A tracker's payment options by 1-based position, translated" },
      },
    );
}

/** User administration (administrators) and the invitation link (public). */
export function userAdminRoutes(admin: UserAdmin, customers: CustomerAccounts, auth: AuthService) {
  return new Elysia({ prefix: '/api', tags: ['users'] })
    .use(authGuard(auth))
    .get('/admin/users', async ({ actor, query }) => ok(await admin.listUsers(actor, query)), {
      query: userListQuerySchema,
      detail: { summary: "The account's users: search, role, department and status filters, sort (administrators)", security },
    })
    .post('/admin/users', async ({ actor, body }) => ok(await admin.createUser(actor, body)), {
      body: userCreateSchema,
      detail: { summary: 'Create a user and e-mail an invitation to set a password, valid 7 days (administrators)', security },
    })
    .get('/admin/users/:userId', async ({ actor, params }) => ok(await admin.getUser(actor, params.userId)), {
      params: adminUserParamsSchema,
      detail: { summary: 'One user of the account (administrators)', security },
    })
    .post('/admin/users/:userId', async ({ actor, params, body }) => ok(await admin.updateUser(actor, params.userId, body)), {
      params: adminUserParamsSchema,
      body: userUpdateAdminSchema,
      detail: { summary: 'Edit a user (§5 rules; a new department resets unit access; the last administrator stays one)', security },
    })
    .delete('/admin/users/:userId', async ({ actor, params }) => ok(await admin.deleteUser(actor, params.userId)), {
      params: adminUserParamsSchema,
      detail: { summary: 'Delete a user (never the last administrator); their trips keep the driver name', security },
    })
    .post('/admin/users/:userId/invitation', async ({ actor, params }) => ok(await admin.resendInvitation(actor, params.userId)), {
      params: adminUserParamsSchema,
      detail: { summary: 'Send the invitation e-mail again (a user who has not set a password yet)', security },
    })
    .get('/admin/users/:userId/sessions', async ({ actor, params }) => ok(await admin.sessions(actor, params.userId)), {
      params: adminUserParamsSchema,
      detail: { summary: "A user's open sessions (administrators)", security },
    })
    .delete('/admin/users/:userId/sessions', async ({ actor, params }) => ok(await admin.endSessions(actor, params.userId, null)), {
      params: adminUserParamsSchema,
      detail: { summary: "End every open session of a user (administrators)", security },
    })
    .delete('/admin/users/:userId/sessions/:sessionId', async ({ actor, params }) => ok(await admin.endSessions(actor, params.userId, params.sessionId)), {
      params: adminSessionParamsSchema,
      detail: { summary: 'End one open session of a user (administrators)', security },
    })
    .post('/invitations/accept', async ({ body }) => ok(await admin.acceptInvitation(body)), {
      body: invitationAcceptSchema,
      detail: { summary: 'Set the first password with an invitation code (single use, 7 days)' },
    })
    .get('/admin/customer-accounts', async ({ actor, query }) => ok(await customers.search(actor, query.q)), {
      query: z.object({ q: z.string().trim().max(100).default('') }),
      detail: { summary: 'Customer accounts by company, org number or id: support every one, a reseller its own customers', security },
    })
    .post(
      '/admin/customer-accounts/:accountId/open',
      async ({ actor, params, headers }) => ok({ user: await customers.open(actor, params.accountId, headers['user-agent'] ?? '') }),
      {
        params: z.object({ accountId: z.coerce.number().int().positive() }),
        detail: { summary: "Open a customer's account read-only (support; a reseller its own customers); audited in that account", security },
      },
    );
}

export interface AccountsService extends AccountService {
  users: UserAdmin;
  customers: CustomerAccounts;
}

/** Accounts: registration, the account's users and the support and reseller scopes. */
export const accountsModule = defineModule({
  name: 'accounts',
  needs: ['units', 'brands', 'auth'],
  create: (platform, { units, brands, auth }: { units: UnitService; brands: BrandService; auth: AuthService }): AccountsService => ({
    ...createAccountService(platform, units, brands),
    users: createUserAdmin(platform, { auth, units, brands }),
    customers: createCustomerAccounts(platform, auth),
  }),
  routes: (accounts, { auth }: { auth: AuthService }) => new Elysia().use(accountRoutes(accounts)).use(userAdminRoutes(accounts.users, accounts.customers, auth)),
});

/** The account's default trip purposes. */
export const purposesModule = defineModule({
  name: 'purposes',
  needs: [],
  create: (platform) => createPurposeService(platform),
  routes: (purposes, { auth }: { auth: AuthService }) => purposeRoutes(purposes, auth),
});

/** The account catalogues units and users are filed under; listed before units, which read them through this service. */
export const catalogModule = defineModule({
  name: 'catalog',
  needs: [],
  create: (platform) => createCatalogService(platform),
  routes: (catalog, { auth }: { auth: AuthService }) => catalogRoutes(catalog, auth),
});

/** Account settings (administrators): company details, market fuel prices, language, time zone and switches. */
export const accountSettingsModule = defineModule({
  name: 'accountSettings',
  needs: ['units'],
  create: (platform, { units }: { units: UnitService }) => createAccountSettingsService(platform, units),
  routes: (settings, { auth }: { auth: AuthService }) => accountSettingsRoutes(settings, auth),
});

/** Bulk tasks (administrators): on users (department, map, two-factor, unit access), and on users or units as queued jobs. */
export const userBulkModule = defineModule({
  name: 'userBulk',
  needs: ['units'],
  create: (platform, { units }: { units: UnitService }) => createUserBulkService(platform, units),
  routes: (bulk, { auth }: { auth: AuthService }) => userBulkRoutes(bulk, auth),
});
