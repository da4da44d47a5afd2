import { bigint, boolean, date, doublePrecision, integer, pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Tables of migration 0420. The service uses parameterised SQL; these types document the rows and name the module as
 * the tables' owner.
 */
export const safeHomes = pgTable('safe_homes', {
  unitId: integer('unit_id').notNull(),
  accountId: integer('account_id').notNull(),
  status: smallint('status').notNull().default(0),
  schedule: text('schedule').notNull().default('[]'),
  frequency: smallint('frequency').notNull().default(1),
  startDate: date('start_date'),
  timeZone: text('time_zone'),
  address: text('address'),
  radius: integer('radius').notNull().default(300),
  centerLat: doublePrecision('center_lat'),
  centerLng: doublePrecision('center_lng'),
  enabledAt: timestamp('enabled_at', { withTimezone: true }),
  lastCheckAt: timestamp('last_check_at', { withTimezone: true }),
  nextDueAt: timestamp('next_due_at', { withTimezone: true }),
  updatedBy: integer('updated_by'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}, (table) => [primaryKey({ columns: [table.unitId, table.accountId] })]);

export const safeHomeChecks = pgTable(
  'safe_home_checks',
  {
    unitId: integer('unit_id').notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    accountId: integer('account_id').notNull(),
    ranAt: timestamp('ran_at', { withTimezone: true }).notNull(),
    late: boolean('late').notNull(),
    outcome: text('outcome').notNull(),
    distanceM: integer('distance_m'),
    alarmId: bigint('alarm_id', { mode: 'number' }),
  },
  (table) => [primaryKey({ columns: [table.unitId, table.dueAt, table.accountId] })],
);
