import { boolean, integer, jsonb, pgTable, serial, smallint, text, timestamp } from 'drizzle-orm/pg-core';

export interface BrandColors {
  primary: string;
  primaryContrast: string;
  accent: string;
  sidebar: string;
  sidebarText: string;
  background: string;
}
export interface BrandFeatures {
  EnableCarSchedule?: boolean;
  EnableSafeReturnHome?: boolean;
  /** The language a new visitor of the brand starts in ('sv', 'en' or 'no'); unset: the browser's language. */
  DefaultLanguage?: string;
}

export const brands = pgTable('brands', {
  subsiteId: smallint('subsite_id').primaryKey(),
  name: text('name').notNull(),
  logoPath: text('logo_path').notNull(),
  logoVariant: text('logo_variant', { enum: ['light', 'black'] }).notNull(),
  colors: jsonb('colors').$type<BrandColors>().notNull(),
  loginDesign: text('login_design', { enum: ['new', 'old'] }).notNull(),
  termsVisible: boolean('terms_visible').notNull(),
  termsUrl: text('terms_url'),
  supportEmail: text('support_email'),
  contactEmail: text('contact_email').notNull(),
  contactPhone: text('contact_phone').notNull(),
  contactAddress: text('contact_address').notNull(),
  noticeUrl: text('notice_url'),
  features: jsonb('features').$type<BrandFeatures>().notNull(),
  /** The smallest geofence radius the brand allows (migration 0200; default 300 m). */
  geofenceRadiusMinM: integer('geofence_radius_min_m').notNull().default(300),
});

export const announcements = pgTable('announcements', {
  id: serial('id').primaryKey(),
  subsiteId: smallint('subsite_id').notNull(),
  language: text('language', { enum: ['sv', 'en', 'no'] }).notNull(),
  text: text('text').notNull(),
  active: boolean('active').notNull().default(true),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export type BrandRow = typeof brands.$inferSelect;
