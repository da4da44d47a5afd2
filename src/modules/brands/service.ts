import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, asc, desc, eq } from 'drizzle-orm';
import type { Database } from '../../lib/db/client';
import { DEFAULT_EXPORT_BRAND, type ExportBrand } from '../../lib/export';
import { notFound } from '../../lib/http';
import { BRAND_LANGUAGES, type Brand, type BrandLanguage } from './model';
import { announcements, type BrandRow, brands } from './schema';

function toBrand(row: BrandRow): Brand {
  return {
    subsiteId: row.subsiteId,
    name: row.name,
    logoPath: row.logoPath,
    logoVariant: row.logoVariant,
    colors: row.colors,
    loginDesign: row.loginDesign,
    termsVisible: row.termsVisible,
    termsUrl: row.termsUrl,
    supportEmail: row.supportEmail,
    contactEmail: row.contactEmail,
    contactPhone: row.contactPhone,
    contactAddress: row.contactAddress,
    noticeUrl: row.noticeUrl,
    features: {
      EnableCarSchedule: row.features.EnableCarSchedule ?? false,
      EnableSafeReturnHome: row.features.EnableSafeReturnHome ?? false,
    },
    defaultLanguage: (BRAND_LANGUAGES as readonly string[]).includes(row.features.DefaultLanguage ?? '') ? (row.features.DefaultLanguage as BrandLanguage) : null,
  };
}

/** Where the brands' logo files live (src/web/public). */
export const BRAND_PUBLIC_DIR = join(import.meta.dir, '..', '..', 'web', 'public');

export function createBrandService(db: Database) {
  async function get(subsiteId: number): Promise<Brand> {
    const [row] = await db.select().from(brands).where(eq(brands.subsiteId, subsiteId)).limit(1);
    if (!row) throw notFound('errors.brandNotFound');
    return toBrand(row);
  }

  /** The brand as an exported file shows it: name, SVG logo, colour and contact; the default look when the sub-site has none. */
  async function exportBrand(subsiteId: number, publicDir = BRAND_PUBLIC_DIR): Promise<ExportBrand> {
    const brand = await get(subsiteId).catch(() => null);
    if (!brand) return DEFAULT_EXPORT_BRAND;
    const path = join(publicDir, brand.logoPath.replace(/^\/+/, ''));
    const logoSvg = path.startsWith(publicDir) && path.endsWith('.svg') && existsSync(path) ? readFileSync(path, 'utf8') : null;
    return {
      name: brand.name,
      logoSvg,
      primaryColor: brand.colors.primary,
      contactAddress: brand.contactAddress,
      contactEmail: brand.contactEmail,
      contactPhone: brand.contactPhone,
    };
  }

  return {
    async list(): Promise<Brand[]> {
      return (await db.select().from(brands).orderBy(asc(brands.subsiteId))).map(toBrand);
    },
    get,
    exportBrand,
    /** Spec §5/§9: the brand's smallest geofence radius in metres (a brand setting; 300 unless the operator changed it). */
    async geofenceRadiusMin(subsiteId: number): Promise<number> {
      const [row] = await db.select({ min: brands.geofenceRadiusMinM }).from(brands).where(eq(brands.subsiteId, subsiteId)).limit(1);
      return row?.min ?? 300;
    },
    async announcement(subsiteId: number, language: 'sv' | 'en' | 'no') {
      const [row] = await db
        .select({ id: announcements.id, text: announcements.text })
        .from(announcements)
        .where(
          and(eq(announcements.subsiteId, subsiteId), eq(announcements.language, language), eq(announcements.active, true)),
        )
        .orderBy(desc(announcements.createdAt))
        .limit(1);
      return row ?? null;
    },
  };
}

export type BrandService = ReturnType<typeof createBrandService>;
