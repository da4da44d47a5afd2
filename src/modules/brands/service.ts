import { and, asc, desc, eq } from 'drizzle-orm';
import type { Database } from '../../lib/db/client';
import { notFound } from '../../lib/http';
import type { Brand } from './model';
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
  };
}

export function createBrandService(db: Database) {
  return {
    async list(): Promise<Brand[]> {
      return (await db.select().from(brands).orderBy(asc(brands.subsiteId))).map(toBrand);
    },
    async get(subsiteId: number): Promise<Brand> {
      const [row] = await db.select().from(brands).where(eq(brands.subsiteId, subsiteId)).limit(1);
      if (!row) throw notFound('errors.brandNotFound');
      return toBrand(row);
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
