import { z } from '../../lib/validation';
import type { BrandColors, BrandFeatures } from './schema';

export const subsiteQuerySchema = z.object({ SubsiteID: z.coerce.number().int().min(0).max(7) });
export const announcementSchema = z.object({
  lang: z.enum(['sv', 'en', 'no']).default('sv'),
  subsiteID: z.coerce.number().int().min(0).max(7),
});

/** What the web app needs to dress itself in a brand. */
export interface Brand {
  subsiteId: number;
  name: string;
  logoPath: string;
  logoVariant: 'light' | 'black';
  colors: BrandColors;
  loginDesign: 'new' | 'old';
  termsVisible: boolean;
  termsUrl: string | null;
  supportEmail: string | null;
  contactEmail: string;
  contactPhone: string;
  contactAddress: string;
  noticeUrl: string | null;
  features: Required<Pick<BrandFeatures, 'EnableCarSchedule' | 'EnableSafeReturnHome'>>;
  /** A new visitor's language on this brand (`features.DefaultLanguage` in its row); null: the browser's. */
  defaultLanguage: BrandLanguage | null;
}

export const BRAND_LANGUAGES = ['sv', 'en', 'no'] as const;
export type BrandLanguage = (typeof BRAND_LANGUAGES)[number];
