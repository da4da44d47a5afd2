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
import type { AccountService } from './service';

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
