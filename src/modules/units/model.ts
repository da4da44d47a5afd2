import { z } from '../../lib/validation';

/** Units and tracker stock. Shared with the web app: no server-only imports here. */

/** Spec §5: an IMEI is numeric, 15 digits. */
export const IMEI_PATTERN = /^\d{15}$/;
export function isValidImeiFormat(imei: string): boolean {
  return IMEI_PATTERN.test(imei.trim());
}
export const imeiSchema = z.string().trim().min(1, { abort: true }).regex(IMEI_PATTERN, 'validation.imei.format');

export const PROTOCOLS = ['teltonika', 'gt06', 'osmand'] as const;
export type Protocol = (typeof PROTOCOLS)[number];
export const DEFAULT_MODEL = 'FMB920';
/** The stock default (migration 0001): keys translated into payment option labels. */
export const DEFAULT_PAYMENT_TYPES = ['payment.card', 'payment.directDebit', 'payment.invoice'] as const;
/** Spec §3: the third payment option carries the paper-invoice hint. */
export const PAPER_INVOICE_POSITION = 3;
/** One request may add a whole delivery of trackers. */
export const STOCK_BATCH_MAX = 10_000;

export const unitIdParamsSchema = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

export const stockAddSchema = z.object({
  /** One or many IMEIs; duplicates are added once. */
  imeis: z.array(imeiSchema).min(1).max(STOCK_BATCH_MAX),
  model: z.string().trim().min(1).max(50).default(DEFAULT_MODEL),
  protocol: z.enum(PROTOCOLS).default('teltonika'),
  /** Reserve the trackers for one sub-site; null or absent: any sub-site may register them. */
  subsiteID: z.number().int().min(0, 'validation.subsite').max(7, 'validation.subsite').nullish(),
  /** Payment option keys (or literal labels) offered at registration, in order; absent: the default three. */
  paymentTypes: z.array(z.string().trim().min(1).max(100)).min(1).max(9).optional(),
});
export type StockAddInput = z.output<typeof stockAddSchema>;

export const stockListQuerySchema = z.object({
  status: z.enum(['all', 'available', 'registered']).default('all'),
  /** IMEI prefix. */
  q: z
    .string()
    .trim()
    .regex(/^\d{0,15}$/, 'validation.imei.format')
    .optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
export type StockListQuery = z.output<typeof stockListQuerySchema>;

/** A unit as the API returns it (spec §3 Unit; field names as in the spec's unit lists). */
export interface UnitView {
  ID: number;
  Name: string;
  Imei: string;
  RegistrationNumber: string;
  Model: string;
  Protocol: Protocol;
  SubscriptionType: string;
  VehicleType: string;
  CreatedAt: string;
}

export interface StockItem {
  imei: string;
  model: string;
  protocol: Protocol;
  subsiteID: number | null;
  paymentTypes: string[];
  addedAt: string;
  /** Registered as a unit (the IMEI is in use). */
  registered: boolean;
}

export interface StockAddResult {
  added: string[];
  /** Already in stock: left unchanged. */
  skipped: string[];
}
