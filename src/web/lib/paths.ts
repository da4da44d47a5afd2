/**
 * The app's screens by route path (spec §2), in one place: the router, the menu, links and redirects all read
 * them here. Plain strings with no imports, so the small entry (`main.tsx`) can use them too.
 */
export const PATHS = {
  login: '/',
  register: '/user/register',
  forgotPassword: '/user/forgot-password',
  resetPassword: '/user/reset-password',
  accountDeletion: '/account/deletion',
  alertOptOut: '/user/alerts',
  liveMap: '/user/realtime-tracking',
  carSchedule: '/user/car-schedule',
  triplog: '/user/create-triplog',
  congestionReport: '/user/create-triplog/congestionreportnew',
  unitList: '/user/edit-terminal-list',
  /** A unit's settings: `?id=` names it. */
  unitEdit: '/user/edit-terminal',
  places: '/user/places',
  /** A new place; an existing one is `placeEdit/{placeID}` (see `placePath`). */
  placeEdit: '/user/places/add-edit-places',
  geofences: '/user/geofences',
  geofenceEdit: '/user/geofences/add-edit-geofences',
  addTerminal: '/administration/add-terminal',
  safeReturnHome: '/administration/safe-return-home',
  userAccounts: '/administration/user-accounts',
  accountSettings: '/administration/account-settings',
  auditLog: '/administration/audit-log',
  /** Support and resellers: find a customer's account and open it read-only. */
  customerAccounts: '/administration/customer-accounts',
  /** The invitation link a new user gets by e-mail (`?_c=` holds the code). */
  acceptInvitation: '/user/accept-invitation',
  alarmReceiver: '/administration/configure-alarm-receiver',
  alertNumbers: '/administration/configure-alert-numbers',
  /** The reports (summary, benefit, eco, fuel, CO2, environmental): `reports/{report}` (see `reportsPath`). */
  reports: '/user/reports',
} as const;

/** An existing place's screen. */
export const placePath = (placeId: number | string) => `${PATHS.placeEdit}/${placeId}`;
/** An existing geofence's screen. */
export const geofencePath = (geofenceId: number | string) => `${PATHS.geofenceEdit}/${geofenceId}`;
/** A unit's settings screen. */
export const unitEditPath = (unitId: number | string) => `${PATHS.unitEdit}?id=${unitId}`;
/** A report's screen (`summary`, `benefit`, `eco`, `fuel`, `co2`, `environmental`). */
export const reportsPath = (report: string) => `${PATHS.reports}/${report}`;
