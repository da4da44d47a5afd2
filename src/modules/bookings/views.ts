import { integer, pgView, timestamp } from 'drizzle-orm/pg-core';

/**
 * The car schedule's published read view (migrations/0351_unit_booked_drivers.sql): who has booked a vehicle when. The
 * trip log reads it so that a trip started during a booking gets the booked driver. Its columns stay stable.
 */
export const unitBookedDrivers = pgView('unit_booked_drivers', {
  unitId: integer('unit_id').notNull(),
  userId: integer('user_id').notNull(),
  startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
  endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
}).existing();
