import type { z } from 'zod';
import { translateMessage } from './i18n';

export type FieldMessages = Record<string, string>;

/** The first message per field of a failed zod parse, translated (shared schemas speak in message keys). */
export function zodFieldErrors(error: z.ZodError): FieldMessages {
  const result: FieldMessages = {};
  for (const issue of error.issues) {
    const field = issue.path.map(String).join('.') || 'form';
    if (!(field in result)) result[field] = translateMessage(issue.message);
  }
  return result;
}

/** Parses with a shared schema: either the data or the translated field errors. */
export function check<S extends z.ZodType>(schema: S, input: unknown): { ok: true; data: z.output<S> } | { ok: false; errors: FieldMessages } {
  const parsed = schema.safeParse(input);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, errors: zodFieldErrors(parsed.error) };
}
