import { queryText, z } from '../../lib/validation';

/**
 * Units, their edit sections, the unit list and tracker stock. Shared with the web app: the unit forms
 * and the server run the same schemas, so this file must stay free of server-only imports. Every message
 * is an i18n key (src/lib/i18n/messages).
 */

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

/**
 * Trip-log devices are vehicle-powered trackers that keep a trip log (features, report frequency);
 * battery devices are asset trackers with operating modes (spec §1 "operating modes for battery-powered trackers").
 */
export const DEVICE_KINDS = ['triplog', 'battery'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];
/** Battery-powered models recognised when stock is added without a kind. */
const BATTERY_MODELS = /^(TAT\d+|TMT\d+|GH\d+|SCOUT\b.*|.*\bASSET\b.*)$/i;
export function deviceKindOfModel(model: string): DeviceKind {
  return BATTERY_MODELS.test(model.trim()) ? 'battery' : 'triplog';
}
/**
 * Model capability data: what a tracker model can do beyond reporting. Spec §4: theft mode applies to Scout v2 only,
 * and a zone alert on any Scout sets its report frequency to one hour. The first entry whose pattern matches wins.
 */
export const MODEL_CAPABILITIES: ReadonlyArray<{ pattern: RegExp; family: string; theftMode: boolean; hourOnZoneAlert: boolean }> = [
  { pattern: /^scout\s*v?2\b/i, family: 'scout', theftMode: true, hourOnZoneAlert: true },
  { pattern: /^scout\b/i, family: 'scout', theftMode: false, hourOnZoneAlert: true },
];
function capabilitiesOf(model: string) {
  const name = model.trim();
  return MODEL_CAPABILITIES.find((entry) => entry.pattern.test(name)) ?? null;
}
export function supportsTheftMode(model: string): boolean {
  return capabilitiesOf(model)?.theftMode ?? false;
}
/** Spec §4: a Scout unit's report frequency goes to one hour on a zone alert. */
export function isScoutModel(model: string): boolean {
  return capabilitiesOf(model)?.hourOnZoneAlert ?? false;
}

// ---------------------------------------------------------------------------------------------
// Spec §3 and §9 constants
// ---------------------------------------------------------------------------------------------

export const VEHICLE_TYPES = [
  'agricultural',
  'forestry',
  'heavy_equipment',
  'off_road',
  'motorcycle',
  'moped',
  'bus',
  'lorry',
  'passenger_car',
  'trailer',
  'motorboat',
  'sailing_boat',
  'cycle',
  'tool',
  'others',
] as const;
export type VehicleType = (typeof VEHICLE_TYPES)[number];
export const FUEL_TYPES = ['petrol', 'diesel', 'electricity', 'gas', 'other'] as const;
export type FuelType = (typeof FUEL_TYPES)[number];
export const MARKER_ICONS = ['car', 'van', 'truck', 'bus', 'motorcycle', 'boat', 'tractor', 'excavator', 'trailer', 'bicycle', 'tool', 'pin'] as const;
export type MarkerIcon = (typeof MARKER_ICONS)[number];
export const CAR_USAGES = ['none', 'benefit', 'private'] as const;
export type CarUsage = (typeof CAR_USAGES)[number];
export const FUEL_PAYERS = ['company', 'private'] as const;
/** Spec §4/§9: position every 24 h (recommended), 8 h, 1 h, real-time (movement based) or theft mode. */
export const OPERATING_MODES = ['24h', '8h', '1h', 'realtime', 'theft'] as const;
export type OperatingMode = (typeof OPERATING_MODES)[number];
/** Report frequency of trip-log trackers while moving, in seconds. */
export const REPORT_FREQUENCIES_S = [10, 30, 60, 120, 300] as const;
export const OBJECT_TYPES = ['boat', 'waterjet', 'car', 'other'] as const;
export const SKIRT_TYPES = ['louse_skirt', 'louse_skirt_hd', 'flow_through_skirt'] as const;
export const BALLAST_TYPES = ['lead', 'steel', 'chain'] as const;
export const GREEN_DRIVING = ['sensitive', 'normal', 'insensitive'] as const;

/** Spec §9: the 50 newest names are kept. */
export const NAME_HISTORY_MAX = 50;
/** Spec §5/§9: PNG, JPG or JPEG, at most 1 MB each, at most 5 per unit. */
export const IMAGE_MAX_BYTES = 1024 * 1024;
export const IMAGES_PER_UNIT = 5;
export const IMAGE_TYPES = ['image/png', 'image/jpeg'] as const;
/** Spec §5/§9: a registration number changes at most twice per 24 h. */
export const REGISTRATION_CHANGES_PER_DAY = 2;
/** How many units one bulk request may name (the web app sends larger selections in slices). */
export const BULK_MAX_UNITS = 500;
export const LIMITS = { name: 100, text: 100, longText: 2000, links: 10, tags: 50, recipients: 20 } as const;

/**
 * Teltonika `setparam` ids (FMB family "Data acquisition" parameters, home / roaming / unknown network):
 * 10000/10100/10200 "Vehicle on stop" min period, 10050/10150/10250 "Vehicle moving" min period, in seconds;
 * 800 "BT radio" (0 disabled, 1 enabled hidden, 2 enabled visible).
 */
export const TELTONIKA_PARAMS = {
  stopPeriod: [10000, 10100, 10200],
  movingPeriod: [10050, 10150, 10250],
  btRadio: 800,
} as const;
/** Spec §9 modes: 24 h, 8 h, 1 h, real-time (5 min moving, 24 h still), theft (5 min moving, 30 min still). */
export const OPERATING_MODE_PERIODS: Record<OperatingMode, { movingS: number; stopS: number }> = {
  '24h': { movingS: 86_400, stopS: 86_400 },
  '8h': { movingS: 28_800, stopS: 28_800 },
  '1h': { movingS: 3_600, stopS: 3_600 },
  realtime: { movingS: 300, stopS: 86_400 },
  theft: { movingS: 300, stopS: 1_800 },
};
export function operatingModeCommand(mode: OperatingMode): string {
  const { movingS, stopS } = OPERATING_MODE_PERIODS[mode];
  const pairs = [...TELTONIKA_PARAMS.stopPeriod.map((id) => `${id}:${stopS}`), ...TELTONIKA_PARAMS.movingPeriod.map((id) => `${id}:${movingS}`)];
  return `setparam ${pairs.join(';')}`;
}
export function reportFrequencyCommand(seconds: number): string {
  return `setparam ${TELTONIKA_PARAMS.movingPeriod.map((id) => `${id}:${seconds}`).join(';')}`;
}
export function bluetoothCommand(enabled: boolean): string {
  return `setparam ${TELTONIKA_PARAMS.btRadio}:${enabled ? 1 : 0}`;
}

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

const id = () => z.coerce.number().int().positive().max(2_147_483_647);
export const unitIdParamsSchema = z.object({ id: id() });
export const unitImageParamsSchema = z.object({ id: id(), imageId: id() });
export const userIdParamsSchema = z.object({ userId: id() });

const text = (max: number = LIMITS.text) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((value) => value ?? '');
/** A whole number or null; '' and absent read as null. */
const optionalInt = (min: number, max: number) =>
  z.preprocess((value) => (value === '' || value === undefined ? null : value), z.number().int().min(min).max(max).nullable());
const optionalNumber = (schema: z.ZodNumber) =>
  z.preprocess((value) => (value === '' || value === undefined ? null : value), schema.nullable());

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
export function isCalendarDate(value: string): boolean {
  if (!DATE_PATTERN.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}
const optionalDate = z.preprocess(
  (value) => (value === '' || value === undefined ? null : value),
  z.string().refine(isCalendarDate, 'units.date.format').nullable(),
);
const TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Spec §5: registration number letters and digits only, required. Spaces and dashes typed between are dropped. */
export function normalizeRegistrationNumber(value: string): string {
  return value.replace(/[\s-]/g, '').toUpperCase();
}
export const registrationNumberSchema = z
  .string()
  .transform(normalizeRegistrationNumber)
  .pipe(z.string().min(1, { message: 'units.registration.required', abort: true }).max(20).regex(/^[\p{L}\d]+$/u, 'units.registration.format'));

// ---------------------------------------------------------------------------------------------
// Stock
// ---------------------------------------------------------------------------------------------

export const stockAddSchema = z.object({
  /** One or many IMEIs; duplicates are added once. */
  imeis: z.array(imeiSchema).min(1).max(STOCK_BATCH_MAX),
  model: z.string().trim().min(1).max(50).default(DEFAULT_MODEL),
  protocol: z.enum(PROTOCOLS).default('teltonika'),
  /** Reserve the trackers for one sub-site; null or absent: any sub-site may register them. */
  subsiteID: z.number().int().min(0, 'validation.subsite').max(7, 'validation.subsite').nullish(),
  /** Payment option keys (or literal labels) offered at registration, in order; absent: the default three. */
  paymentTypes: z.array(z.string().trim().min(1).max(100)).min(1).max(9).optional(),
  /** Absent: from the model (battery models such as TAT100 or Scout are battery devices). */
  deviceKind: z.enum(DEVICE_KINDS).optional(),
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

// ---------------------------------------------------------------------------------------------
// Unit list
// ---------------------------------------------------------------------------------------------

export const UNIT_STATUSES = ['moving', 'parked', 'offline'] as const;
export const UNIT_LIST_COLUMNS = [
  'name',
  'registrationNumber',
  'imei',
  'model',
  'vehicleType',
  'department',
  'project',
  'tags',
  'subscriptionType',
  'status',
  'lastSeen',
  'odometer',
  'operatingHours',
  'operatingMode',
  'reportFrequency',
  'fuelType',
  'carUsage',
  'locked',
  'driver',
  'outputs',
  'inputs',
  'nextInspection',
] as const;
export type UnitListColumn = (typeof UNIT_LIST_COLUMNS)[number];
/** The columns the unit list shows until the user chooses (the shared preferences store keeps their choice, `table.units`). */
export const DEFAULT_LIST_COLUMNS: UnitListColumn[] = ['name', 'registrationNumber', 'imei', 'vehicleType', 'department', 'status', 'lastSeen'];
export const SORTABLE_COLUMNS = [
  'name',
  'registrationNumber',
  'imei',
  'model',
  'vehicleType',
  'department',
  'project',
  'subscriptionType',
  'status',
  'lastSeen',
  'odometer',
  'nextInspection',
] as const;
export type SortColumn = (typeof SORTABLE_COLUMNS)[number];

/**
 * What a sortable column sorts by, for one unit: the server's order and the unit list's table share it. Null is an empty
 * value (last in either direction); statuses sort moving, parked, offline; times by their instant.
 */
export function unitSortValue(unit: UnitView, column: SortColumn): string | number | null {
  switch (column) {
    case 'name':
      return unit.Name;
    case 'registrationNumber':
      return unit.RegistrationNumber || null;
    case 'imei':
      return unit.Imei;
    case 'model':
      return unit.Model || null;
    case 'vehicleType':
      return unit.VehicleType;
    case 'department':
      return unit.Department?.name ?? null;
    case 'project':
      return unit.Project?.name ?? null;
    case 'subscriptionType':
      return unit.SubscriptionType;
    case 'status':
      return UNIT_STATUSES.indexOf(unit.Status);
    case 'lastSeen':
      return unit.LastSeen ? Date.parse(unit.LastSeen) : null;
    case 'odometer':
      return unit.OdometerKm;
    case 'nextInspection':
      return unit.NextInspection;
  }
}

export const unitListQuerySchema = z.object({
  /** Name, registration number or IMEI contains (case-insensitive). */
  q: queryText(100),
  departmentId: id().optional(),
  projectId: id().optional(),
  tagId: id().optional(),
  vehicleType: z.enum(VEHICLE_TYPES).optional(),
  subscription: z.string().trim().min(1).max(50).optional(),
  status: z.enum(UNIT_STATUSES).optional(),
  sort: z.enum(SORTABLE_COLUMNS).default('name'),
  order: z.enum(['asc', 'desc']).default('asc'),
});
export type UnitListQuery = z.output<typeof unitListQuerySchema>;


// ---------------------------------------------------------------------------------------------
// Edit sections (each saves on its own)
// ---------------------------------------------------------------------------------------------

/** Spec §5: the unit name is required. */
export const nameSchema = z.object({ name: z.string().trim().min(1, 'units.name.required').max(LIMITS.name) });

/** Registration number (§5), vehicle type and the vehicle's identification, inspection and service. */
export const detailsSchema = z.object({
  registrationNumber: registrationNumberSchema,
  vehicleType: z.enum(VEHICLE_TYPES),
  vin: text(30),
  chassisNumber: text(50),
  chassisPlacement: text(),
  obdPortType: text(50),
  obdPlacement: text(),
  horsepower: optionalInt(0, 10_000),
  inspectionPeriodMonths: optionalInt(1, 120),
  nextInspection: optionalDate,
  serviceIntervalKm: optionalInt(1, 1_000_000),
  lastService: optionalDate,
});
export type DetailsInput = z.output<typeof detailsSchema>;

export const organisationSchema = z.object({
  departmentId: id().nullable(),
  projectId: id().nullable(),
  tagIds: z
    .array(id())
    .max(LIMITS.tags)
    .transform((ids) => [...new Set(ids)]),
});
export type OrganisationInput = z.output<typeof organisationSchema>;

/** Spec §5: odometer and operating hours are required. Calibrating sets today's values; the history is kept. */
export const metersSchema = z.object({
  odometerKm: z.number({ error: 'units.odometer.required' }).min(0).max(10_000_000),
  operatingHours: z.number({ error: 'units.operatingHours.required' }).min(0).max(1_000_000),
});
export type MetersInput = z.output<typeof metersSchema>;

/** Spec §3/§5: benefit or private car, fuel payer, reimbursement per 10 km (> 0). */
export const benefitSchema = z
  .object({
    carUsage: z.enum(CAR_USAGES),
    fuelPayer: z.enum(FUEL_PAYERS).nullish(),
    reimbursementPer10Km: optionalNumber(z.number().gt(0, 'units.reimbursement.positive').max(100_000)),
  })
  .superRefine((value, context) => {
    if (value.carUsage !== 'none' && !value.fuelPayer) context.addIssue({ code: 'custom', path: ['fuelPayer'], message: 'units.fuelPayer.required' });
    if (value.carUsage === 'private' && value.reimbursementPer10Km === null) {
      context.addIssue({ code: 'custom', path: ['reimbursementPer10Km'], message: 'units.reimbursement.positive' });
    }
  });
export type BenefitInput = z.output<typeof benefitSchema>;

const workingDay = z
  .object({
    day: z.number().int().min(1).max(7),
    start: z.string().regex(TIME_PATTERN, 'units.time.format'),
    end: z.string().regex(TIME_PATTERN, 'units.time.format'),
  })
  .refine((value) => value.end > value.start, { path: ['end'], message: 'units.workingHours.order' });
/** Working hours per weekday (Monday 1 … Sunday 7); when on, at least one working day (spec §5). */
export const workingHoursSchema = z
  .object({ enabled: z.boolean(), days: z.array(workingDay).max(7) })
  .superRefine((value, context) => {
    if (value.enabled && value.days.length === 0) context.addIssue({ code: 'custom', path: ['days'], message: 'units.workingHours.oneDay' });
    if (new Set(value.days.map((day) => day.day)).size !== value.days.length) {
      context.addIssue({ code: 'custom', path: ['days'], message: 'units.workingHours.duplicateDay' });
    }
  })
  .transform((value) => ({ enabled: value.enabled, days: [...value.days].sort((a, b) => a.day - b.day) }));
export type WorkingHoursInput = z.output<typeof workingHoursSchema>;

/** Fuel type and consumption per 10 km (litres, or kWh for electricity); required for benefit cars (server). */
export const fuelSchema = z.object({
  fuelType: z.enum(FUEL_TYPES).nullable(),
  fuelConsumptionPer10Km: optionalNumber(z.number().gt(0, 'units.fuel.positive').max(1000)),
});
export type FuelInput = z.output<typeof fuelSchema>;

/** CO2 emission in grams per km; required for benefit cars (server). */
export const co2Schema = z.object({ co2GPerKm: optionalNumber(z.number().min(0).max(10_000)) });
export type Co2Input = z.output<typeof co2Schema>;

export const markerSchema = z.object({
  color: z
    .string()
    .trim()
    .regex(/^#[0-9a-fA-F]{6}$/, 'units.color.format')
    .transform((value) => value.toLowerCase()),
  markerIcon: z.enum(MARKER_ICONS),
});
export type MarkerInput = z.output<typeof markerSchema>;

export const operatingModeSchema = z.object({ mode: z.enum(OPERATING_MODES) });
export const reportFrequencySchema = z.object({
  seconds: z.number().refine((value) => (REPORT_FREQUENCIES_S as readonly number[]).includes(value), 'validation.invalidValue'),
});
export const reportFrequencyLockSchema = z.object({ locked: z.boolean() });
/** Minutes a unit stands still before it counts as parked (the trip log ends a trip there). */
export const timeTillParkedSchema = z.object({ minutes: z.number().int().min(1).max(1440) });
export const featuresSchema = z.object({ featureProfileId: id().nullable() });
export const bluetoothSchema = z.object({ enabled: z.boolean() });
export const frequencyPermissionSchema = z.object({ denied: z.boolean() });

/** Spec §3 object description. The hull number is 14 characters, letters and digits (an ISO 10087 HIN without dashes). */
export const objectDescriptionSchema = z.object({
  objectType: z.enum(OBJECT_TYPES),
  manufacturer: text(),
  model: text(),
  year: optionalInt(1900, 2100),
  hullNumber: z
    .string()
    .nullish()
    .transform((value) => normalizeRegistrationNumber(value ?? ''))
    .pipe(z.union([z.literal(''), z.string().regex(/^[A-Z0-9]{14}$/, 'units.hullNumber.format')])),
  motor: text(),
  motorNumber: text(),
  horsepower: optionalInt(0, 10_000),
  trackerLocation: text(),
  dnaMarking: text(),
  insuranceCompany: text(),
  insuranceNumber: text(),
  policeDetails: text(500),
  links: z
    .array(z.object({ name: z.string().trim().min(1).max(LIMITS.text), url: z.string().trim().url('units.link.url').max(500) }))
    .max(LIMITS.links)
    .default([]),
  serialNumber: text(),
  productionDate: optionalDate,
  skirtType: z.enum(SKIRT_TYPES).nullish().transform((value) => value ?? null),
  lengthM: optionalNumber(z.number().gt(0).max(1000)),
  depthM: optionalNumber(z.number().gt(0).max(1000)),
  weightKg: optionalNumber(z.number().gt(0).max(10_000_000)),
  ballastType: z.enum(BALLAST_TYPES).nullish().transform((value) => value ?? null),
});
export type ObjectDescriptionInput = z.output<typeof objectDescriptionSchema>;

const recipient = z.string().trim().toLowerCase().min(1, { abort: true }).max(254).email('validation.email');
/** Spec §3 theft info. */
export const theftReportSchema = z.object({
  theftDate: optionalDate,
  stolenFrom: text(200),
  whatStolen: text(500),
  ownerName: text(),
  ownerEmail: z.union([z.literal(''), recipient]).nullish().transform((value) => value ?? ''),
  ownerPhone: text(30),
  policeStation: text(),
  policeReportNumber: text(50),
  insuranceClaimNumber: text(50),
  otherInformation: text(LIMITS.longText),
  recipients: z
    .array(recipient)
    .max(LIMITS.recipients)
    .default([])
    .transform((list) => [...new Set(list)]),
});
export type TheftReportInput = z.output<typeof theftReportSchema>;

/** Spec §4/§8: a tracker replacement cannot be undone, so the caller confirms it. */
export const replaceTrackerSchema = z.object({
  imei: imeiSchema,
  confirm: z.literal(true, { error: 'units.replace.confirm' }),
});

/** Add terminal (administrators and support): an IMEI from stock (§5 rules) registered to an account. */
export const addTerminalSchema = z.object({
  imei: imeiSchema,
  name: z.string().trim().max(LIMITS.name).optional(),
  registrationNumber: z
    .string()
    .optional()
    .transform((value) => (value === undefined ? '' : normalizeRegistrationNumber(value)))
    .pipe(z.union([z.literal(''), z.string().max(20).regex(/^[\p{L}\d]+$/u, 'units.registration.format')])),
  vehicleType: z.enum(VEHICLE_TYPES).default('passenger_car'),
  /** Support names the customer account; an administrator always adds to their own. */
  accountId: id().optional(),
});
export type AddTerminalInput = z.output<typeof addTerminalSchema>;

export const BULK_TASKS = ['department', 'project', 'tags', 'featureProfile', 'operatingMode', 'reportFrequency', 'workingHours', 'access'] as const;
export type BulkTaskKind = (typeof BULK_TASKS)[number];
export const bulkTaskSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('department'), departmentId: id().nullable() }),
  z.object({ kind: z.literal('project'), projectId: id().nullable() }),
  z.object({ kind: z.literal('tags'), tagIds: z.array(id()).max(LIMITS.tags), mode: z.enum(['add', 'remove', 'replace']).default('add') }),
  z.object({ kind: z.literal('featureProfile'), featureProfileId: id().nullable() }),
  z.object({ kind: z.literal('operatingMode'), mode: z.enum(OPERATING_MODES) }),
  z.object({ kind: z.literal('reportFrequency'), seconds: reportFrequencySchema.shape.seconds }),
  /** Spec §5: a bulk working-hours task needs at least one working day. */
  z.object({
    kind: z.literal('workingHours'),
    enabled: z.boolean(),
    days: z.array(workingDay).min(1, 'units.workingHours.oneDay').max(7),
  }).superRefine((value, context) => {
    if (new Set(value.days.map((day) => day.day)).size !== value.days.length) context.addIssue({ code: 'custom', path: ['days'], message: 'units.workingHours.duplicateDay' });
  }),
  /** Spec §6 unit access: give these users of the account the units, or take them away. */
  z.object({
    kind: z.literal('access'),
    userIds: z.array(id()).min(1, 'units.bulk.noUser').max(10_000).transform((ids) => [...new Set(ids)]),
    mode: z.enum(['add', 'remove']).default('add'),
  }),
]);
export type BulkTask = z.output<typeof bulkTaskSchema>;
/** Spec §5: bulk actions need at least one unit. */
export const bulkSchema = z.object({
  unitIds: z
    .array(id())
    .min(1, 'units.bulk.none')
    .max(BULK_MAX_UNITS)
    .transform((ids) => [...new Set(ids)]),
  task: bulkTaskSchema,
});

/** Spec §6: administrators give users access to units (the whole list replaces the previous one). */
export const unitUsersSchema = z.object({
  userIds: z
    .array(id())
    .max(10_000)
    .transform((ids) => [...new Set(ids)]),
});
export const userUnitsSchema = z.object({
  unitIds: z
    .array(id())
    .max(20_000)
    .transform((ids) => [...new Set(ids)]),
});

export const catalogKinds = ['departments', 'projects', 'tags'] as const;
export type CatalogKind = (typeof catalogKinds)[number];
/** Spec §5: department, project and tag names are unique (per account). */
export const catalogCreateSchema = z.object({
  name: z.string().trim().min(1).max(100),
  description: text(500),
});
export const catalogEntryParamsSchema = z.object({ id: id() });

/** Spec §9: a device holds at most 5 geozones; a feature profile names the account's geofences that go to its units. */
export const FEATURE_PROFILE_GEOZONES = 5;
/** Spec §3 feature profile working hours: repeating every 1, 2 or 3 weeks. */
export const SCHEDULE_RECURRENCES = [1, 2, 3] as const;
const scheduleDay = z
  .object({
    /** Which week of the cycle (1 … recurrence). */
    week: z.number().int().min(1).max(3).default(1),
    day: z.number().int().min(1).max(7),
    start: z.string().regex(TIME_PATTERN, 'units.time.format'),
    end: z.string().regex(TIME_PATTERN, 'units.time.format'),
  })
  .refine((value) => value.end > value.start, { path: ['end'], message: 'units.workingHours.order' });
export const profileScheduleSchema = z
  .object({
    recurrence: z.union([z.literal(1), z.literal(2), z.literal(3)], { error: 'units.featureProfile.recurrence' }),
    /** The Monday (YYYY-MM-DD) the first week of the cycle begins; null for a weekly schedule. */
    startDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'units.date.format')
      .nullish()
      .transform((value) => value ?? null),
    days: z.array(scheduleDay).max(21),
  })
  .superRefine((value, context) => {
    if (value.days.length === 0) context.addIssue({ code: 'custom', path: ['days'], message: 'units.workingHours.oneDay' });
    value.days.forEach((day, index) => {
      if (day.week > value.recurrence) context.addIssue({ code: 'custom', path: ['days', index, 'week'], message: 'units.featureProfile.recurrence' });
    });
    if (new Set(value.days.map((day) => `${day.week}:${day.day}`)).size !== value.days.length) {
      context.addIssue({ code: 'custom', path: ['days'], message: 'units.workingHours.duplicateDay' });
    }
    if (value.recurrence > 1 && value.startDate === null) context.addIssue({ code: 'custom', path: ['startDate'], message: 'units.date.format' });
  })
  .transform((value) => ({ ...value, days: [...value.days].sort((a, b) => a.week - b.week || a.day - b.day) }));
export type ProfileSchedule = z.output<typeof profileScheduleSchema>;

export const featureProfileCreateSchema = z.object({
  name: z.string().trim().min(1).max(100),
  greenDriving: z.enum(GREEN_DRIVING).default('normal'),
  overspeedKmh: optionalInt(1, 300),
  carBenefit: z.boolean().default(false),
  geozoneIds: z
    .array(id())
    .max(FEATURE_PROFILE_GEOZONES, 'units.featureProfile.tooManyGeozones')
    .default([])
    .transform((ids) => [...new Set(ids)]),
  workingHours: profileScheduleSchema.nullable().default(null),
});
export type FeatureProfileInput = z.output<typeof featureProfileCreateSchema>;

/** Support's account picker on add terminal: search by company name, org number or id. */
export const accountSearchSchema = z.object({ q: z.string().trim().max(100).default('') });
export interface AccountChoice {
  id: number;
  companyName: string;
  orgNumber: string;
  subsiteId: number;
}

// ---------------------------------------------------------------------------------------------
// Theft mode (spec §4, §9): `GET /api/units/:id/theft-mode` → TheftModeView, `POST` { on } → TheftModeView
// ---------------------------------------------------------------------------------------------

export const theftModeInputSchema = z.object({ on: z.boolean() });

/** Off; switched on and waiting for the tracker to confirm; on; switched off and waiting for the tracker. */
export const THEFT_MODE_STATES = ['off', 'pending-on', 'on', 'pending-off'] as const;
export type TheftModeState = (typeof THEFT_MODE_STATES)[number];

export interface TheftModeView {
  unitId: number;
  state: TheftModeState;
  /** Whether the unit's tracker model supports theft mode (model capability data; spec: "Scout v2 only"). */
  supported: boolean;
  /** `manual` or the zone whose exit switched it on. */
  cause: { kind: 'manual' } | { kind: 'geofence'; geofenceId: number; geofenceName: string } | null;
  since: string | null;
  /** The last switch did not reach the tracker (no answer, expired or refused): the state is back where it was. */
  failed: boolean;
  /** The operating mode switching off restores (null while off). */
  previousMode: Exclude<OperatingMode, 'theft'> | null;
}

// ---------------------------------------------------------------------------------------------
// Wire types
// ---------------------------------------------------------------------------------------------

export interface NamedRef {
  id: number;
  name: string;
}

/** A unit as the API lists it (spec §3 Unit; field names as in the spec's unit lists). */
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
  DeviceKind: DeviceKind;
  Color: string;
  MarkerIcon: string;
  Department: NamedRef | null;
  Project: NamedRef | null;
  Tags: NamedRef[];
  FeatureProfile: NamedRef | null;
  OperatingMode: OperatingMode | null;
  /** Spec §4 theft mode (also while switching, before the tracker confirms). */
  TheftMode: TheftModeState;
  ReportFrequencyS: number | null;
  FuelType: FuelType | null;
  CarUsage: CarUsage;
  isLocked: boolean;
  /**
   * Spec §6: whether the caller has access to the unit's trips and positions. False only for a locked benefit
   * or private car that the caller neither locked nor was given access to; then position, last contact,
   * status, outputs and inputs are left out (the caller sees its benefit value and summary reports only).
   */
  HasAccess: boolean;
  /** Spec §3: the driver checked in on the unit now (trip log), or null. */
  CheckedInDriver: NamedRef | null;
  NextInspection: string | null;
  /** Live: last contact (ISO), status and the tracker's outputs and inputs (null when unknown). */
  LastSeen: string | null;
  Status: (typeof UNIT_STATUSES)[number];
  OdometerKm: number | null;
  OperatingHours: number | null;
  Outputs: { dout1: boolean | null; dout2: boolean | null; dout3: boolean | null };
  Inputs: { din2: boolean | null; din3: boolean | null };
}

export interface SettingRequestView {
  value: string;
  status: 'pending' | 'confirmed' | 'failed' | 'superseded';
  requestedAt: string;
  resolvedAt: string | null;
}

/** One unit with every section of the edit page. */
export interface UnitDetail extends UnitView {
  Vin: string;
  ChassisNumber: string;
  ChassisPlacement: string;
  ObdPortType: string;
  ObdPlacement: string;
  Horsepower: number | null;
  InspectionPeriodMonths: number | null;
  ServiceIntervalKm: number | null;
  LastService: string | null;
  FuelConsumptionPer10Km: number | null;
  Co2GPerKm: number | null;
  FuelPayer: 'company' | 'private' | null;
  ReimbursementPer10Km: number | null;
  WorkingHours: WorkingHoursInput;
  BluetoothEnabled: boolean;
  ReportFrequencyLocked: boolean;
  /** Spec §6: whether the caller may change report frequency / operating mode now. */
  CanChangeReportFrequency: boolean;
  TimeTillParkedMin: number | null;
  Lock: { lockedBy: NamedRef | null; lockedAt: string | null; canUnlock: boolean; canLock: boolean };
  /** Settings sent to the tracker and not yet confirmed (or the last failure), by setting. */
  PendingSettings: Partial<Record<'operating_mode' | 'report_frequency' | 'bluetooth', SettingRequestView>>;
  Position: { lat: number; lon: number; time: string | null } | null;
  HasObjectDescription: boolean;
  HasTheftReport: boolean;
  ImageCount: number;
}

/** Spec §6 unit access: a user of the account and whether they are given access to one unit. */
export interface UnitAccessUser {
  id: number;
  name: string;
  email: string;
  role: string;
  /** Administrators see every unit; for them access matters when the unit is locked. */
  seesAll: boolean;
  hasAccess: boolean;
  /** The user who locked the unit (always has access while it is locked). */
  isLocker: boolean;
}

export interface UserUnitAccess {
  userId: number;
  unitIds: number[];
}

export interface CatalogEntry {
  id: number;
  name: string;
  description: string;
  /** Units filed under it. */
  units: number;
}

export interface FeatureProfileView extends FeatureProfileInput {
  id: number;
  units: number;
}

export interface CatalogView {
  departments: CatalogEntry[];
  projects: CatalogEntry[];
  tags: CatalogEntry[];
  featureProfiles: FeatureProfileView[];
}

export interface NameHistoryEntry {
  previousName: string;
  name: string;
  changedBy: string | null;
  changedAt: string;
}

export interface LockLogEntry {
  action: 'locked' | 'unlocked';
  by: string | null;
  locker: string | null;
  at: string;
}

export interface MeterHistoryEntry {
  kind: 'odometer' | 'hours';
  /** Kilometres or hours as set. */
  value: number;
  setBy: string | null;
  setAt: string;
}

export interface TrackerHistoryEntry {
  previousImei: string;
  previousModel: string;
  imei: string;
  model: string;
  replacedBy: string | null;
  replacedAt: string;
}

export interface ImageView {
  id: number;
  contentType: string;
  fileName: string;
  size: number;
  uploadedAt: string;
}

export interface ObjectDescriptionView extends ObjectDescriptionInput {
  updatedAt: string;
  images: ImageView[];
}

export interface TheftReportView extends TheftReportInput {
  updatedAt: string;
  sentAt: string | null;
}

export interface UnitOptions {
  departments: NamedRef[];
  projects: NamedRef[];
  tags: NamedRef[];
  featureProfiles: NamedRef[];
  subscriptions: string[];
}

export interface BulkResult {
  results: Array<{ unitId: number; ok: boolean; error: string | null; pending?: boolean }>;
}

export interface StockItem {
  imei: string;
  model: string;
  protocol: Protocol;
  subsiteID: number | null;
  paymentTypes: string[];
  deviceKind: DeviceKind;
  addedAt: string;
  /** Registered as a unit (the IMEI is in use). */
  registered: boolean;
}

export interface StockAddResult {
  added: string[];
  /** Already in stock: left unchanged. */
  skipped: string[];
}

/**
 * Car info onboarding (spec §2): what the trip log and reports need of a car, in one short guided form. A benefit car
 * needs its fuel consumption and CO2 (spec §5); benefit and private cars name the fuel payer.
 */
export const carInfoSchema = z
  .object({
    registrationNumber: registrationNumberSchema,
    model: text(100),
    fuelType: z.enum(FUEL_TYPES).nullable(),
    fuelConsumptionPer10Km: optionalNumber(z.number().gt(0, 'units.fuel.positive').max(1000)),
    co2GPerKm: optionalNumber(z.number().min(0).max(10_000)),
    carUsage: z.enum(CAR_USAGES),
    fuelPayer: z.enum(FUEL_PAYERS).nullish().transform((value) => value ?? null),
    odometerKm: z.number({ error: 'units.odometer.required' }).min(0).max(10_000_000),
  })
  .superRefine((value, context) => {
    if (value.carUsage === 'benefit' && value.fuelConsumptionPer10Km === null) context.addIssue({ code: 'custom', path: ['fuelConsumptionPer10Km'], message: 'units.benefit.fuelRequired' });
    if (value.carUsage === 'benefit' && value.co2GPerKm === null) context.addIssue({ code: 'custom', path: ['co2GPerKm'], message: 'units.benefit.co2Required' });
    if (value.carUsage !== 'none' && value.fuelPayer === null) context.addIssue({ code: 'custom', path: ['fuelPayer'], message: 'units.fuelPayer.required' });
  });
export type CarInfoInput = z.output<typeof carInfoSchema>;

/** A unit still waiting for its car info; `skipped` ones were put off and can be resumed. */
export interface CarInfoPending {
  id: number;
  name: string;
  registrationNumber: string;
  model: string;
  fuelType: (typeof FUEL_TYPES)[number] | null;
  fuelConsumptionPer10Km: number | null;
  co2GPerKm: number | null;
  carUsage: (typeof CAR_USAGES)[number];
  fuelPayer: (typeof FUEL_PAYERS)[number] | null;
  skipped: boolean;
}
