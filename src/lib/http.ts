import { type Language, translate } from './i18n';

/** The `{ success, data, errors }` envelope of every API response. */
export interface Envelope<T> {
  success: boolean;
  data: T | null;
  errors: FieldErrors | string | ErrorDetail | null;
  message?: string;
}
export type FieldErrors = Record<string, string[]>;
export interface ErrorDetail {
  msg: string;
  count?: number;
}

export const UNAUTHENTICATED = 'Unauthenticated.';

export function ok<T>(data: T): Envelope<T> {
  return { success: true, data, errors: null };
}

/** A success envelope whose data the caller wrote as JSON text already (see `okJson`); `apiCompression` sends it. */
export class JsonEnvelope {
  constructor(readonly text: string) {}
}

/** `ok()` for data that is JSON text already (a large list the database wrote): sent as it is, never parsed. */
export function okJson(dataJson: string): JsonEnvelope {
  return new JsonEnvelope(`{"success":true,"data":${dataJson},"errors":null}`);
}

/**
 * A failure a client can act on. `key` is a message key translated into the caller's language;
 * `fields` holds per-field message keys (422); `detail` carries extra values such as remaining attempts.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly key: string,
    readonly options: {
      fields?: Record<string, string[]>;
      params?: Record<string, string | number>;
      detail?: { count?: number };
      /** Extra response headers, e.g. Retry-After on a 429. */
      headers?: Record<string, string>;
    } = {},
  ) {
    super(key);
    this.name = 'AppError';
  }

  get headers(): Record<string, string> {
    return this.options.headers ?? {};
  }
}

/** 429 with the seconds until the caller may try again. */
export const tooManyRequests = (key: string, retryAfterMs: number, detail?: { count?: number }) =>
  new AppError(429, key, { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) }, detail });

export const badRequest = (key: string, params?: Record<string, string | number>) =>
  new AppError(400, key, { params });
export const forbidden = (key = 'errors.forbidden') => new AppError(403, key);
export const notFound = (key = 'errors.notFound') => new AppError(404, key);
export const conflict = (key: string) => new AppError(409, key);
/** 422 with one field's error. */
export const fieldError = (field: string, key: string, params?: Record<string, string | number>) =>
  new AppError(422, key, { fields: { [field]: [key] }, params });

export function errorEnvelope(error: AppError, language: Language): Envelope<null> {
  const message = translate(language, error.key, error.options.params);
  if (error.options.fields) {
    const errors: FieldErrors = {};
    for (const [field, keys] of Object.entries(error.options.fields)) {
      errors[field] = keys.map((key) => translate(language, key, error.options.params));
    }
    return { success: false, data: null, errors, message };
  }
  if (error.options.detail?.count !== undefined) {
    return { success: false, data: null, errors: { msg: message, count: error.options.detail.count }, message };
  }
  return { success: false, data: null, errors: message, message };
}

const MAX_REPORTED_ISSUES = 50;

/** Turns Elysia's validation issues (from zod) into 422 field errors keyed by the payload field. */
export function validationError(issues: Array<{ path?: string | (string | number)[]; message?: string }>): AppError {
  const fields: Record<string, string[]> = {};
  // A body of thousands of bad items would otherwise answer thousands of messages: the first ones say enough.
  for (const issue of issues.slice(0, MAX_REPORTED_ISSUES)) {
    const path = Array.isArray(issue.path) ? issue.path.join('.') : String(issue.path ?? '').replace(/^\//, '');
    const field = path.replaceAll('/', '.') || 'body';
    const key = issue.message ?? 'validation.invalid';
    const list = fields[field] ?? [];
    if (!list.includes(key)) list.push(key);
    fields[field] = list;
  }
  return new AppError(422, 'validation.failed', { fields });
}

