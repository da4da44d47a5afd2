/**
 * The texts the signed-out pages use (the login page with its two-factor and password steps, the error and not-found
 * pages): the groups of the web texts, and the server messages (shared schemas' validation, sign-in errors) by the
 * start of their keys. The web build makes a small chunk of them per language (`public-texts:<language>`, see
 * scripts/build-web.ts), loaded before the login page; the whole catalogues come with any other screen.
 */
export const PUBLIC_GROUPS = ['changePassword', 'common', 'crash', 'dialog', 'errors', 'forgot', 'login', 'notFound', 'password', 'reset', 'twoFactor'] as const;
export const PUBLIC_SERVER_PREFIXES = ['auth.', 'errors.', 'validation.'] as const;
