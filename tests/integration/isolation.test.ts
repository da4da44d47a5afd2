/**
 * Account isolation: a user of account A who names an object of account B (by id, user id or IMEI) gets
 * 403/404/422 and none of B's data, and B's data stays as it was. The list of endpoints is checked against
 * the OpenAPI document, so a new endpoint that takes an id fails this file until it has a case here.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type CallResult, type TestApp } from '../support/app';
import { decodeUnitList, type TrackedUnitList } from '../../src/modules/tracking/model';

let app: TestApp;

interface Party {
  accountId: number;
  adminId: number;
  adminEmail: string;
  userId: number;
  userEmail: string;
  unitId: number;
  unitName: string;
  imei: string;
  password: string;
}
let a: Party;
let b: Party;
let bToken: string;
let callers: Array<{ role: string; token: string }>;

async function party(label: string, imei: string): Promise<Party> {
  const admin = await app.createAccount();
  const userEmail = `plain-${label.toLowerCase()}-${admin.userId}@example.com`;
  const [user] = await app.database.rows<{ id: number }>(sql`
    insert into users (account_id, email, password_hash, first_name, role)
    values (${admin.accountId}, ${userEmail}, (select password_hash from users where id = ${admin.userId}), ${`User ${label}`}, 'user')
    returning id`);
  await app.services.units.addStock({ imeis: [imei], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
  const unitName = `Secret unit of ${label}`;
  const [unit] = await app.database.rows<{ id: number }>(sql`
    insert into units (account_id, imei, name) values (${admin.accountId}, ${imei}, ${unitName}) returning id`);
  // Spec §6: the ordinary user sees the units given to them.
  await app.grantUnits(user!.id, [unit!.id]);
  return {
    accountId: admin.accountId,
    adminId: admin.userId,
    adminEmail: admin.email,
    userId: user!.id,
    userEmail,
    unitId: unit!.id,
    unitName,
    imei,
    password: admin.password,
  };
}

/** Everything of B that must not change or leak. */
async function snapshotOfB() {
  return app.database.rows(sql`
    select u.id, u.email, u.password_hash, u.role, u.two_factor, u.alerts_opt_out,
           (select count(*)::int from sessions s where s.user_id = u.id and s.revoked_at is null) as open_sessions,
           (select json_agg(json_build_object('id', n.id, 'name', n.name, 'imei', n.imei, 'account', n.account_id) order by n.id)
              from units n where n.account_id = ${b.accountId}) as units
    from users u where u.account_id = ${b.accountId} order by u.id`);
}

beforeAll(async () => {
  app = await createTestApp();
  a = await party('A', '356307042480001');
  b = await party('B', '356307042480002');
  bToken = await app.login({ email: b.adminEmail, password: b.password, subsiteId: 0 });
  callers = [
    { role: 'administrator of A', token: await app.login({ email: a.adminEmail, password: a.password, subsiteId: 0 }) },
    { role: 'ordinary user of A', token: await app.login({ email: a.userEmail, password: a.password, subsiteId: 0 }) },
  ];
}, 60_000);
afterAll(async () => {
  await app?.close();
});

interface IsolationCase {
  /** As the OpenAPI document names it: `METHOD /api/path/{param}`. */
  endpoint: string;
  /** Calls the endpoint as a user of A, naming B's object. */
  call(token: string): Promise<CallResult>;
  statuses: number[];
}

const registration = (imei: string) => ({
  Imei: imei,
  personal_org_number: '198112189876',
  address: 'Storgatan 1',
  city: 'Stockholm',
  zipCode: '11122',
  contactPerson: 'Eve',
  country: 'Sverige',
  fullName: 'Eve Intruder',
  phone: '+46701234567',
  reseller: 'Shop',
  subsiteID: 0,
  terms: 1,
  userName: 'eve@example.com',
  userPassword: 'Secret-123!',
  userPassword_confirmation: 'Secret-123!',
  is_private_account: 1,
  countryDialCode: '46',
});

/** B's objects that the unit endpoints are asked about (set up after the parties, see the last beforeAll). */
const bUnits = { departmentId: 0, featureProfileId: 0, imageId: 0, freshImei: '356307042480009', projectId: 0, tagId: 0 };

/** B's trip and A's own trip (for naming B's user as driver), set up in the trips beforeAll at the end. */
const trips = { bTripId: 0, bTripBefore: null as unknown, aTripId: 0, bAttestId: 0, bAttestBefore: null as unknown };
const tripPost = (path: (tripId: number) => string, body: unknown, statuses = [404]): IsolationCase => ({
  endpoint: `POST ${path(0).replace('/0', '/{id}')}`,
  call: (token) => app.call('POST', path(trips.bTripId), { token, body }),
  statuses,
});
const tripCases: IsolationCase[] = [
  tripPost((id) => `/api/trips/${id}`, { type: 'private', purpose: 'Hijacked' }),
  tripPost((id) => `/api/trips/${id}/split`, undefined),
  tripPost((id) => `/api/trips/${id}/check-in`, { driverUserId: 1 }, [404, 422]),
  tripPost((id) => `/api/trips/${id}/check-out`, undefined),
  {
    endpoint: 'POST /api/trips/{id}/check-in',
    call: (token) => app.call('POST', `/api/trips/${trips.aTripId}/check-in`, { token, body: { driverUserId: b.userId } }),
    statuses: [422],
  },
  {
    endpoint: 'POST /api/trips/type',
    call: (token) => app.call('POST', '/api/trips/type', { token, body: { tripIds: [trips.bTripId], type: 'private' } }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/trips/merge',
    call: (token) => app.call('POST', '/api/trips/merge', { token, body: { tripIds: [trips.aTripId, trips.bTripId] } }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/trips/attests',
    call: (token) => app.call('POST', '/api/trips/attests', { token, body: { userId: b.userId, period: '2026-03', note: 'Hijacked' } }),
    statuses: [404],
  },
  {
    endpoint: 'GET /api/trips/attests',
    call: (token) => app.call('GET', `/api/trips/attests?userId=${b.userId}&period=2026-02`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/trips/attests/{id}/unlock',
    call: (token) => app.call('POST', `/api/trips/attests/${trips.bAttestId}/unlock`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/trips/attests/{id}/unattest',
    call: (token) => app.call('POST', `/api/trips/attests/${trips.bAttestId}/unattest`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'DELETE /api/trips/attests/{id}',
    call: (token) => app.call('DELETE', `/api/trips/attests/${trips.bAttestId}`, { token }),
    statuses: [404],
  },
];

/** A multipart picture upload, as the web app sends it. */
async function uploadPicture(token: string, unitId: number): Promise<CallResult> {
  const form = new FormData();
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
  form.append('file', new File([png], 'hijack.png', { type: 'image/png' }));
  const response = await app.api.handle(
    new Request(`http://localhost/api/units/${unitId}/images`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-lang': 'en' }, body: form }),
  );
  return { status: response.status, body: (await response.json()) as CallResult['body'], headers: response.headers };
}

const unitSection = (path: string, body: unknown): IsolationCase => ({
  endpoint: `POST /api/units/{id}/${path}`,
  call: (token) => app.call('POST', `/api/units/${b.unitId}/${path}`, { token, body }),
  statuses: [403, 404],
});
const unitRead = (path: string): IsolationCase => ({
  endpoint: `GET /api/units/{id}/${path}`,
  call: (token) => app.call('GET', `/api/units/${b.unitId}/${path}`, { token }),
  statuses: [404],
});

const unitCases: IsolationCase[] = [
  {
    endpoint: 'GET /api/units',
    call: (token) => app.call('GET', `/api/units?departmentId=${bUnits.departmentId}`, { token }),
    statuses: [404, 422],
  },
  {
    endpoint: 'GET /api/units',
    call: (token) => app.call('GET', `/api/units?tagId=${bUnits.departmentId}&projectId=${bUnits.departmentId}`, { token }),
    statuses: [404, 422],
  },
  unitSection('name', { name: 'Hijacked' }),
  unitRead('name-history'),
  unitSection('details', { registrationNumber: 'EVE666', vehicleType: 'lorry' }),
  unitSection('organisation', { departmentId: null, projectId: null, tagIds: [] }),
  {
    endpoint: 'POST /api/units/{id}/organisation',
    call: (token) => app.call('POST', `/api/units/${a.unitId}/organisation`, { token, body: { departmentId: bUnits.departmentId, projectId: null, tagIds: [] } }),
    statuses: [422],
  },
  unitSection('meters', { odometerKm: 1, operatingHours: 1 }),
  unitRead('meters/history'),
  unitSection('benefit', { carUsage: 'none' }),
  unitSection('working-hours', { enabled: false, days: [] }),
  unitSection('fuel', { fuelType: 'diesel', fuelConsumptionPer10Km: 9 }),
  unitSection('co2', { co2GPerKm: 1 }),
  unitSection('marker', { color: '#000000', markerIcon: 'truck' }),
  unitSection('operating-mode', { mode: '1h' }),
  unitSection('report-frequency', { seconds: 10 }),
  unitSection('report-frequency-lock', { locked: true }),
  unitSection('time-till-parked', { minutes: 99 }),
  unitSection('features', { featureProfileId: null }),
  {
    endpoint: 'POST /api/units/{id}/features',
    call: (token) => app.call('POST', `/api/units/${a.unitId}/features`, { token, body: { featureProfileId: bUnits.featureProfileId } }),
    statuses: [422],
  },
  unitSection('bluetooth', { enabled: true }),
  unitSection('lock', {}),
  unitSection('unlock', {}),
  unitRead('lock-log'),
  unitRead('object-description'),
  unitSection('object-description', { objectType: 'car', manufacturer: 'Eve' }),
  unitRead('object-description/pdf'),
  { endpoint: 'POST /api/units/{id}/images', call: (token) => uploadPicture(token, b.unitId), statuses: [404] },
  {
    endpoint: 'GET /api/units/{id}/images/{imageId}',
    call: (token) => app.call('GET', `/api/units/${b.unitId}/images/${bUnits.imageId}`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'GET /api/units/{id}/images/{imageId}',
    call: (token) => app.call('GET', `/api/units/${a.unitId}/images/${bUnits.imageId}`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'DELETE /api/units/{id}/images/{imageId}',
    call: (token) => app.call('DELETE', `/api/units/${b.unitId}/images/${bUnits.imageId}`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'DELETE /api/units/{id}/images/{imageId}',
    call: (token) => app.call('DELETE', `/api/units/${a.unitId}/images/${bUnits.imageId}`, { token }),
    statuses: [404],
  },
  unitRead('theft-report'),
  unitSection('theft-report', { recipients: ['eve@example.com'] }),
  unitRead('theft-report/pdf'),
  unitSection('theft-report/send', {}),
  // Theft mode: B's unit is 404 to A whichever way it is asked or switched (nothing queued to B's tracker).
  unitRead('theft-mode'),
  unitSection('theft-mode', { on: true }),
  unitSection('theft-mode', { on: false }),
  unitSection('replace-tracker', { imei: bUnits.freshImei, confirm: true }),
  {
    endpoint: 'POST /api/units/{id}/replace-tracker',
    call: (token) => app.call('POST', `/api/units/${a.unitId}/replace-tracker`, { token, body: { imei: b.imei, confirm: true } }),
    statuses: [403, 422],
  },
  unitRead('tracker-history'),
  {
    endpoint: 'POST /api/admin/units',
    call: (token) => app.call('POST', '/api/admin/units', { token, body: { imei: bUnits.freshImei, accountId: b.accountId } }),
    statuses: [403, 422],
  },
  {
    endpoint: 'POST /api/admin/units',
    call: (token) => app.call('POST', '/api/admin/units', { token, body: { imei: b.imei } }),
    statuses: [403, 422],
  },
  {
    endpoint: 'GET /api/admin/units/{id}/first-position',
    call: (token) => app.call('GET', `/api/admin/units/${b.unitId}/first-position`, { token }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/admin/users/{userId}/report-frequency',
    call: (token) => app.call('POST', `/api/admin/users/${b.userId}/report-frequency`, { token, body: { denied: true } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/units/bulk',
    call: (token) => app.call('POST', '/api/units/bulk', { token, body: { unitIds: [a.unitId, b.unitId], task: { kind: 'department', departmentId: null } } }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/units/bulk',
    call: (token) => app.call('POST', '/api/units/bulk', { token, body: { unitIds: [a.unitId], task: { kind: 'department', departmentId: bUnits.departmentId } } }),
    statuses: [422],
  },
  // Unit access (spec §6): B's unit's users, B's user's units, and A's unit or user given B's.
  { endpoint: 'GET /api/admin/units/{id}/users', call: (token) => app.call('GET', `/api/admin/units/${b.unitId}/users`, { token }), statuses: [403, 404] },
  {
    endpoint: 'POST /api/admin/units/{id}/users',
    call: (token) => app.call('POST', `/api/admin/units/${b.unitId}/users`, { token, body: { userIds: [a.userId] } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/admin/units/{id}/users',
    call: (token) => app.call('POST', `/api/admin/units/${a.unitId}/users`, { token, body: { userIds: [b.userId] } }),
    statuses: [403, 422],
  },
  { endpoint: 'GET /api/admin/users/{userId}/units', call: (token) => app.call('GET', `/api/admin/users/${b.userId}/units`, { token }), statuses: [403, 404] },
  {
    endpoint: 'POST /api/admin/users/{userId}/units',
    call: (token) => app.call('POST', `/api/admin/users/${b.userId}/units`, { token, body: { unitIds: [a.unitId] } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/admin/users/{userId}/units',
    call: (token) => app.call('POST', `/api/admin/users/${a.userId}/units`, { token, body: { unitIds: [b.unitId] } }),
    statuses: [403, 422],
  },
  // B's departments, projects, tags and feature profiles: renamed or deleted by A (spec §5 catalogues).
  ...(['departments', 'projects', 'tags'] as const).flatMap((kind): IsolationCase[] => {
    const bId = () => (kind === 'departments' ? bUnits.departmentId : kind === 'projects' ? bUnits.projectId : bUnits.tagId);
    return [
      {
        endpoint: `POST /api/admin/${kind}/{id}`,
        call: (token) => app.call('POST', `/api/admin/${kind}/${bId()}`, { token, body: { name: 'Hijacked', description: '' } }),
        statuses: [403, 404],
      },
      { endpoint: `DELETE /api/admin/${kind}/{id}`, call: (token) => app.call('DELETE', `/api/admin/${kind}/${bId()}`, { token }), statuses: [403, 404] },
    ];
  }),
  {
    endpoint: 'POST /api/admin/feature-profiles/{id}',
    call: (token) => app.call('POST', `/api/admin/feature-profiles/${bUnits.featureProfileId}`, { token, body: { name: 'Hijacked' } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'DELETE /api/admin/feature-profiles/{id}',
    call: (token) => app.call('DELETE', `/api/admin/feature-profiles/${bUnits.featureProfileId}`, { token }),
    statuses: [403, 404],
  },
];

/** B's default purpose (set up in the purposes beforeAll at the end) and the trip log's attested-trips read. */
const purposes = { bPurposeId: 0, bBefore: null as unknown };
// User administration, the audit log and the support scope (issue 19): B's users, B's department, B's account.
/** B's bulk job (set up in the bulk-jobs beforeAll at the end). */
const bulkJobs = { bJobId: 0 };

const userAdminCases: IsolationCase[] = [
  {
    endpoint: 'POST /api/admin/bulk-jobs',
    call: (token) => app.call('POST', '/api/admin/bulk-jobs', { token, body: { target: 'users', ids: [a.userId, b.userId], task: { kind: 'twoFactor', enabled: true } } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/admin/bulk-jobs',
    call: (token) => app.call('POST', '/api/admin/bulk-jobs', { token, body: { target: 'units', ids: [a.unitId, b.unitId], task: { kind: 'department', departmentId: null } } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/admin/bulk-jobs',
    call: (token) =>
      app.call('POST', '/api/admin/bulk-jobs', { token, body: { target: 'users', ids: [a.userId], task: { kind: 'department', departmentId: bUnits.departmentId } } }),
    // Accepted as a job (nothing is done yet) would be wrong: B's department is checked before the job exists.
    statuses: [403, 404, 422],
  },
  { endpoint: 'GET /api/admin/bulk-jobs/{jobId}', call: (token) => app.call('GET', `/api/admin/bulk-jobs/${bulkJobs.bJobId}`, { token }), statuses: [403, 404] },
  {
    endpoint: 'POST /api/admin/users/bulk',
    call: (token) => app.call('POST', '/api/admin/users/bulk', { token, body: { userIds: [a.userId, b.userId], task: { kind: 'twoFactor', enabled: true } } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'GET /api/admin/users',
    call: (token) => app.call('GET', `/api/admin/users?departmentId=${bUnits.departmentId}`, { token }),
    statuses: [403, 422],
  },
  {
    endpoint: 'POST /api/admin/users',
    call: (token) => app.call('POST', '/api/admin/users', { token, body: { firstName: 'Eve', email: 'eve@example.com', departmentId: bUnits.departmentId } }),
    statuses: [403, 422],
  },
  { endpoint: 'GET /api/admin/users/{userId}', call: (token) => app.call('GET', `/api/admin/users/${b.userId}`, { token }), statuses: [403, 404] },
  {
    endpoint: 'POST /api/admin/users/{userId}',
    call: (token) => app.call('POST', `/api/admin/users/${b.adminId}`, { token, body: { firstName: 'Eve', email: 'eve2@example.com', isAdmin: false } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/admin/users/{userId}',
    call: (token) =>
      app.call('POST', `/api/admin/users/${a.userId}`, { token, body: { firstName: 'User', email: a.userEmail, departmentId: bUnits.departmentId } }),
    statuses: [403, 422],
  },
  { endpoint: 'DELETE /api/admin/users/{userId}', call: (token) => app.call('DELETE', `/api/admin/users/${b.userId}`, { token }), statuses: [403, 404] },
  {
    endpoint: 'POST /api/admin/users/{userId}/invitation',
    call: (token) => app.call('POST', `/api/admin/users/${b.userId}/invitation`, { token }),
    statuses: [403, 404],
  },
  {
    endpoint: 'GET /api/admin/users/{userId}/sessions',
    call: (token) => app.call('GET', `/api/admin/users/${b.adminId}/sessions`, { token }),
    statuses: [403, 404],
  },
  {
    endpoint: 'DELETE /api/admin/users/{userId}/sessions',
    call: (token) => app.call('DELETE', `/api/admin/users/${b.adminId}/sessions`, { token }),
    statuses: [403, 404],
  },
  {
    endpoint: 'DELETE /api/admin/users/{userId}/sessions/{sessionId}',
    call: async (token) => {
      const [session] = await app.database.rows<{ id: string }>(sql`select id from sessions where user_id = ${b.adminId} and revoked_at is null limit 1`);
      return app.call('DELETE', `/api/admin/users/${b.adminId}/sessions/${session!.id}`, { token });
    },
    statuses: [403, 404],
  },
  { endpoint: 'GET /api/audit', call: (token) => app.call('GET', `/api/audit?actorUserId=${b.adminId}`, { token }), statuses: [403, 404] },
  {
    endpoint: 'GET /api/audit/export',
    call: async (token) => {
      const response = await app.api.handle(
        new Request(`http://localhost/api/audit/export?format=csv&actorUserId=${b.adminId}`, { headers: { authorization: `Bearer ${token}`, 'x-lang': 'en' } }),
      );
      return { status: response.status, body: await response.json(), headers: response.headers } as CallResult;
    },
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/admin/customer-accounts/{accountId}/open',
    call: (token) => app.call('POST', `/api/admin/customer-accounts/${b.accountId}/open`, { token }),
    statuses: [403],
  },
];

const purposeCases: IsolationCase[] = [
  {
    endpoint: 'POST /api/purposes/{id}',
    call: (token) => app.call('POST', `/api/purposes/${purposes.bPurposeId}`, { token, body: { name: 'Hijacked', description: '' } }),
    statuses: [404],
  },
  {
    endpoint: 'DELETE /api/purposes/{id}',
    call: (token) => app.call('DELETE', `/api/purposes/${purposes.bPurposeId}`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'GET /api/trips/attested',
    call: (token) => app.call('GET', `/api/trips/attested?unitId=${b.unitId}&from=2026-03-01&to=2026-03-31`, { token }),
    statuses: [404],
  },
];

/** B's browser push subscription (set up in the notifications beforeAll at the end). */
const notifications = { bSubscriptionId: 0 };

/** B's place and A's own place (set up in the places beforeAll at the end). */
const places = { bPlaceId: 0, aPlaceId: 0, bBefore: null as unknown };
const placeBody = (unitIds: number[], rules: unknown[] = []) => ({
  label: 'Hijacked place',
  address: 'Nowhere 1',
  latitude: 59.33,
  longitude: 18.07,
  radiusM: 100,
  units: unitIds,
  rules,
});
const placeCases: IsolationCase[] = [
  { endpoint: 'GET /api/places/{id}', call: (token) => app.call('GET', `/api/places/${places.bPlaceId}`, { token }), statuses: [404] },
  {
    endpoint: 'POST /api/places/{id}',
    call: (token) => app.call('POST', `/api/places/${places.bPlaceId}`, { token, body: placeBody([a.unitId]) }),
    statuses: [404],
  },
  { endpoint: 'DELETE /api/places/{id}', call: (token) => app.call('DELETE', `/api/places/${places.bPlaceId}`, { token }), statuses: [404] },
  { endpoint: 'POST /api/places', call: (token) => app.call('POST', '/api/places', { token, body: placeBody([b.unitId]) }), statuses: [422] },
  {
    endpoint: 'POST /api/places',
    call: (token) =>
      app.call('POST', '/api/places', {
        token,
        body: placeBody([a.unitId], [{ kind: 'between', otherPlaceId: places.bPlaceId, days: [1], from: '08:00', to: '09:00', category: 'private' }]),
      }),
    statuses: [422],
  },
  {
    endpoint: 'POST /api/places/{id}',
    call: (token) => app.call('POST', `/api/places/${places.aPlaceId}`, { token, body: placeBody([a.unitId, b.unitId]) }),
    statuses: [422],
  },
  {
    endpoint: 'POST /api/trips/apply-place-rules',
    call: (token) => app.call('POST', '/api/trips/apply-place-rules', { token, body: { unitId: b.unitId, from: '2026-03-01', to: '2026-03-31' } }),
    statuses: [404],
  },
];

// Car info onboarding (units): A saves or skips the car info of B's unit.
const carInfoCases: IsolationCase[] = [
  {
    endpoint: 'POST /api/units/{id}/car-info',
    call: (token) =>
      app.call('POST', `/api/units/${b.unitId}/car-info`, {
        token,
        body: { registrationNumber: 'ABC123', model: '', fuelType: null, fuelConsumptionPer10Km: null, co2GPerKm: null, carUsage: 'none', odometerKm: 0 },
      }),
    statuses: [403, 404],
  },
  { endpoint: 'POST /api/units/{id}/car-info/skip', call: (token) => app.call('POST', `/api/units/${b.unitId}/car-info/skip`, { token }), statuses: [403, 404] },
];
// --- Geofences: B's zone (set up in the geofences beforeAll at the end) and A's own zone. ---
const geofences = { bZoneId: 0, aZoneId: 0, bBefore: null as unknown };
const geofenceBody = (unitIds: number[]) => ({
  name: 'Hijacked zone',
  shape: 'circle',
  center: { latitude: 59.33, longitude: 18.07 },
  radiusM: 500,
  points: null,
  units: unitIds,
  deactivations: [],
  theftMode: false,
  realTime: true,
  active: true,
});
const geofenceCases: IsolationCase[] = [
  { endpoint: 'GET /api/geofences/{id}', call: (token) => app.call('GET', `/api/geofences/${geofences.bZoneId}`, { token }), statuses: [404] },
  {
    endpoint: 'POST /api/geofences/{id}',
    call: (token) => app.call('POST', `/api/geofences/${geofences.bZoneId}`, { token, body: geofenceBody([a.unitId]) }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/geofences/{id}/active',
    call: (token) => app.call('POST', `/api/geofences/${geofences.bZoneId}/active`, { token, body: { active: false } }),
    statuses: [404],
  },
  { endpoint: 'DELETE /api/geofences/{id}', call: (token) => app.call('DELETE', `/api/geofences/${geofences.bZoneId}`, { token }), statuses: [404] },
  { endpoint: 'GET /api/geofences/events', call: (token) => app.call('GET', `/api/geofences/events?geofenceId=${geofences.bZoneId}`, { token }), statuses: [404] },
  { endpoint: 'GET /api/geofences/events', call: (token) => app.call('GET', `/api/geofences/events?unitId=${b.unitId}`, { token }), statuses: [404] },
  { endpoint: 'POST /api/geofences', call: (token) => app.call('POST', '/api/geofences', { token, body: geofenceBody([b.unitId]) }), statuses: [422] },
  {
    endpoint: 'POST /api/geofences/{id}',
    call: (token) => app.call('POST', `/api/geofences/${geofences.aZoneId}`, { token, body: geofenceBody([a.unitId, b.unitId]) }),
    statuses: [422],
  },
];
// --- end of geofences ---
// --- Alarms: B's alarm (raised in the alarms beforeAll at the end). ---
const alarmIds = { b: 0 };
const alarmCases: IsolationCase[] = [
  { endpoint: 'POST /api/alarms/{id}/acknowledge', call: (token) => app.call('POST', `/api/alarms/${alarmIds.b}/acknowledge`, { token }), statuses: [404] },
  { endpoint: 'POST /api/alarms/acknowledge', call: (token) => app.call('POST', '/api/alarms/acknowledge', { token, body: { ids: [alarmIds.b] } }), statuses: [404] },
  { endpoint: 'GET /api/alarms', call: (token) => app.call('GET', `/api/alarms?unitId=${b.unitId}`, { token }), statuses: [404] },
  { endpoint: 'GET /api/alarms/deliveries', call: (token) => app.call('GET', `/api/alarms/deliveries?alarmId=${alarmIds.b}`, { token }), statuses: [403, 404] },
];
// --- end of alarms ---
// --- Alarm receivers: B's receiver and BLE tag, A's own receiver (set up in the alarm receivers beforeAll at the end). ---
const receivers = { bReceiverId: 0, bBleId: 0, aReceiverId: 0, aBleId: 0, bBefore: null as unknown };
const refusedReceiver = [403, 404];
const receiverCases: IsolationCase[] = [
  {
    endpoint: 'GET /api/admin/alarm-receiver/list/gps/{unitId}',
    call: (token) => app.call('GET', `/api/admin/alarm-receiver/list/gps/${b.unitId}`, { token }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'GET /api/admin/alarm-receiver/list/ble/{unitId}',
    call: (token) => app.call('GET', `/api/admin/alarm-receiver/list/ble/${receivers.bBleId}`, { token }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'POST /api/admin/alarm-receiver/add-edit',
    call: (token) =>
      app.call('POST', '/api/admin/alarm-receiver/add-edit', { token, body: { id: receivers.bReceiverId, name: 'Hijacked', email: 'hijack@example.com' } }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'POST /api/admin/alarm-receiver/add-edit',
    call: (token) => app.call('POST', '/api/admin/alarm-receiver/add-edit', { token, body: { id: 0, member_id: b.userId, name: 'Hijacked' } }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'POST /api/admin/alarm-receiver/add-edit',
    call: (token) =>
      app.call('POST', '/api/admin/alarm-receiver/add-edit', {
        token,
        body: { id: 0, name: 'Hijacked', email: 'hijack@example.com', terminal_id: b.unitId, device_type: 'gps' },
      }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'POST /api/admin/alarm-receiver/add-edit',
    call: (token) =>
      app.call('POST', '/api/admin/alarm-receiver/add-edit', {
        token,
        body: { id: receivers.aReceiverId, name: 'Hijacked', email: 'hijack@example.com', terminal_id: receivers.bBleId, device_type: 'ble' },
      }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'GET /api/admin/alarm-receiver/{id}/delete',
    call: (token) => app.call('GET', `/api/admin/alarm-receiver/${receivers.bReceiverId}/delete`, { token }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'POST /api/admin/alarm-receiver/get-units',
    call: (token) => app.call('POST', '/api/admin/alarm-receiver/get-units', { token, body: { receiverId: receivers.bReceiverId } }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'POST /api/admin/alarm-receiver/get-units',
    call: (token) => app.call('POST', '/api/admin/alarm-receiver/get-units', { token, body: { receiverId: 0, memberId: b.adminId } }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'POST /api/admin/alarm-receiver/unit/assign',
    call: (token) =>
      app.call('POST', '/api/admin/alarm-receiver/unit/assign', {
        token,
        body: { receiver_id: receivers.bReceiverId, terminals: [{ terminal_id: a.unitId, device_type: 'gps' }] },
      }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'POST /api/admin/alarm-receiver/unit/assign',
    call: (token) =>
      app.call('POST', '/api/admin/alarm-receiver/unit/assign', {
        token,
        body: {
          receiver_id: receivers.aReceiverId,
          terminals: [
            { terminal_id: a.unitId, device_type: 'gps' },
            { terminal_id: b.unitId, device_type: 'gps' },
          ],
        },
      }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'POST /api/admin/alarm-receiver/unit/assign',
    call: (token) =>
      app.call('POST', '/api/admin/alarm-receiver/unit/assign', {
        token,
        body: { receiver_id: receivers.aReceiverId, terminals: [{ terminal_id: receivers.bBleId, device_type: 'ble' }] },
      }),
    statuses: refusedReceiver,
  },
  {
    endpoint: 'POST /api/admin/alarm-receiver/alarm-type/toggle',
    call: (token) =>
      app.call('POST', '/api/admin/alarm-receiver/alarm-type/toggle', { token, body: { receiverId: receivers.bReceiverId, type: 'security', state: 0 } }),
    statuses: refusedReceiver,
  },
  // Alert numbers are for the configured parent account's users only: A is not one (nor is B).
  {
    endpoint: 'POST /api/admin/alert-numbers/{id}',
    call: (token) => app.call('POST', '/api/admin/alert-numbers/1', { token, body: { country_code: '46', phone: '0701234567' } }),
    statuses: [403],
  },
  { endpoint: 'DELETE /api/admin/alert-numbers/{id}', call: (token) => app.call('DELETE', '/api/admin/alert-numbers/1', { token }), statuses: [403] },
];
// --- end of alarm receivers ---

// --- bookings (car schedule): B's booking, set up in the bookings beforeAll at the end ---
const bookings = { bBookingId: 0 };
const bookingBody = (imei: string, overrides: Record<string, unknown> = {}) => ({
  imei,
  start_date: '2026-03-10 10:00:00',
  end_date: '2026-03-10 11:00:00',
  purpose: 'Hijacked',
  ...overrides,
});
const bookingCases: IsolationCase[] = [
  { endpoint: 'GET /api/car-schedule/week', call: (token) => app.call('GET', `/api/car-schedule/week?week_day=2026-03-10&Imeis=${b.imei}`, { token }), statuses: [404] },
  { endpoint: 'GET /api/car-schedule/month', call: (token) => app.call('GET', `/api/car-schedule/month?month=2026-03&Imeis=${b.imei}`, { token }), statuses: [404] },
  {
    endpoint: 'GET /api/car-schedule/units/{unitId}/bookings',
    call: (token) => app.call('GET', `/api/car-schedule/units/${b.unitId}/bookings`, { token }),
    statuses: [404],
  },
  { endpoint: 'POST /api/car-schedule/drivers', call: (token) => app.call('POST', '/api/car-schedule/drivers', { token, body: { imei: b.imei } }), statuses: [404] },
  {
    endpoint: 'POST /api/car-schedule/save',
    call: (token) => app.call('POST', '/api/car-schedule/save', { token, body: bookingBody(b.imei, { driver_id: a.userId, start_date: '2026-03-11 10:00', end_date: '2026-03-11 11:00' }) }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/car-schedule/save',
    call: (token) => app.call('POST', '/api/car-schedule/save', { token, body: bookingBody(a.imei, { driver_id: b.userId, start_date: '2026-03-12 10:00', end_date: '2026-03-12 11:00' }) }),
    statuses: [403, 422],
  },
  {
    endpoint: 'POST /api/car-schedule/update',
    call: (token) => app.call('POST', '/api/car-schedule/update', { token, body: { ...bookingBody(a.imei, { driver_id: a.userId }), id: bookings.bBookingId } }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/car-schedule/update',
    call: (token) => app.call('POST', '/api/car-schedule/update', { token, body: { ...bookingBody(b.imei, { driver_id: b.userId }), id: bookings.bBookingId } }),
    statuses: [404],
  },
  { endpoint: 'POST /api/car-schedule/delete', call: (token) => app.call('POST', '/api/car-schedule/delete', { token, body: { id: bookings.bBookingId } }), statuses: [404] },
];
// --- end of bookings ---

// --- safe return home: B's vehicle named by IMEI ---
const safeHomeCases: IsolationCase[] = [
  {
    endpoint: 'GET /api/admin/safe-home/tracker/latest-position',
    call: (token) => app.call('GET', `/api/admin/safe-home/tracker/latest-position?imei=${b.imei}`, { token }),
    statuses: [403, 404],
  },
  {
    endpoint: 'PUT /api/admin/safe-home/toggle-status',
    call: (token) => app.call('PUT', '/api/admin/safe-home/toggle-status', { token, body: { imei: b.imei, status: 0 } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'PUT /api/admin/safe-home/set-geofence',
    call: (token) =>
      app.call('PUT', '/api/admin/safe-home/set-geofence', { token, body: { imei: b.imei, radius: 300, centerLat: 59.36, centerLng: 18.0, address: 'Solna' } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'PUT /api/admin/safe-home/update-schedule-alert',
    call: (token) =>
      app.call('PUT', '/api/admin/safe-home/update-schedule-alert', {
        token,
        body: { imei: b.imei, schedule: [{ week: 1, days: [{ day: 1, time: '18:00' }] }], frequency: 1, start_date: '2026-03-02', time_zone: 'Europe/Stockholm' },
      }),
    statuses: [403, 404],
  },
];
// --- end of safe return home ---
// --- fleet reports and scheduled reports: B's unit, driver and schedule (set up in the reports beforeAll at the end) ---
const reports = { bScheduleId: 0 };
const scheduleBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Hijacked schedule',
  kind: 'summary',
  scope: { groupBy: 'vehicle' },
  frequency: 'weekly',
  format: 'csv',
  recipientEmails: ['eve@example.com'],
  ...overrides,
});
const reportCases: IsolationCase[] = [
  ...(['summary', 'eco', 'fuel', 'co2', 'environment'] as const).flatMap((kind): IsolationCase[] => [
    { endpoint: `GET /api/reports/${kind}`, call: (token) => app.call('GET', `/api/reports/${kind}?unitIds=${b.unitId}`, { token }), statuses: [404] },
    { endpoint: `GET /api/reports/${kind}`, call: (token) => app.call('GET', `/api/reports/${kind}?driverId=${b.userId}`, { token }), statuses: [404] },
  ]),
  { endpoint: 'GET /api/reports/schedules/{id}', call: (token) => app.call('GET', `/api/reports/schedules/${reports.bScheduleId}`, { token }), statuses: [404] },
  {
    endpoint: 'PUT /api/reports/schedules/{id}',
    call: (token) => app.call('PUT', `/api/reports/schedules/${reports.bScheduleId}`, { token, body: scheduleBody() }),
    statuses: [404],
  },
  { endpoint: 'DELETE /api/reports/schedules/{id}', call: (token) => app.call('DELETE', `/api/reports/schedules/${reports.bScheduleId}`, { token }), statuses: [404] },
  {
    endpoint: 'POST /api/reports/schedules',
    call: (token) => app.call('POST', '/api/reports/schedules', { token, body: scheduleBody({ scope: { unitIds: [b.unitId], groupBy: 'vehicle' } }) }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/reports/schedules',
    call: (token) => app.call('POST', '/api/reports/schedules', { token, body: scheduleBody({ recipientUserIds: [b.userId] }) }),
    statuses: [422],
  },
];
// --- end of reports ---
// --- benefit value and reimbursement: B's unit, department and driver named by A ---
const benefitCases: IsolationCase[] = [
  { endpoint: 'GET /api/reports/benefit', call: (token) => app.call('GET', `/api/reports/benefit?unitIds=${b.unitId}&from=2026-01-01&to=2026-01-31`, { token }), statuses: [404] },
  { endpoint: 'GET /api/reports/benefit', call: (token) => app.call('GET', `/api/reports/benefit?driverId=${b.userId}&from=2026-01-01&to=2026-01-31`, { token }), statuses: [404] },
  {
    endpoint: 'GET /api/reports/benefit',
    call: (token) => app.call('GET', `/api/reports/benefit?departmentId=${bUnits.departmentId}&from=2026-01-01&to=2026-01-31`, { token }),
    statuses: [404, 422],
  },
  {
    endpoint: 'GET /api/reports/benefit/export',
    call: (token) => app.call('GET', `/api/reports/benefit/export?unitIds=${b.unitId}&from=2026-01-01&to=2026-01-31&format=csv`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'GET /api/reports/benefit/export',
    call: (token) => app.call('GET', `/api/reports/benefit/export?driverId=${b.userId}&format=csv`, { token }),
    statuses: [404],
  },
  { endpoint: 'GET /api/reports/benefit/cars/{unitId}', call: (token) => app.call('GET', `/api/reports/benefit/cars/${b.unitId}`, { token }), statuses: [404] },
  {
    endpoint: 'PUT /api/reports/benefit/cars/{unitId}',
    call: (token) => app.call('PUT', `/api/reports/benefit/cars/${b.unitId}`, { token, body: { listPrice: 1 } }),
    statuses: [403, 404],
  },
  {
    endpoint: 'PUT /api/reports/benefit/cars/{unitId}',
    call: (token) => app.call('PUT', `/api/reports/benefit/cars/${a.unitId}`, { token, body: { holderUserId: b.userId } }),
    statuses: [403, 422],
  },
];
// --- end of benefit value and reimbursement ---

const cases: IsolationCase[] = [
  {
    endpoint: 'GET /api/units/{id}',
    call: (token) => app.call('GET', `/api/units/${b.unitId}`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'GET /api/trips',
    call: (token) => app.call('GET', `/api/trips?unitId=${b.unitId}&from=2026-03-01&to=2026-03-31`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'GET /api/trips/export',
    call: (token) => app.call('GET', `/api/trips/export?unitId=${b.unitId}&from=2026-03-01&to=2026-03-31&format=csv`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'GET /api/reports/congestion',
    call: (token) => app.call('GET', `/api/reports/congestion?unitId=${b.unitId}&from=2026-02-01&to=2026-02-28`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'POST /api/user/update',
    call: (token) => app.call('POST', '/api/user/update', {
        token,
        body: { userId: b.adminId, email: 'eve@example.com', password: 'Taken-123!', current_password: a.password },
      }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/user/update',
    call: (token) => app.call('POST', '/api/user/update', {
        token,
        body: { userId: b.userId, email: 'eve2@example.com', password: 'Taken-123!', current_password: a.password },
      }),
    statuses: [403, 404],
  },
  {
    endpoint: 'POST /api/2fa/generate',
    call: (token) => app.call('POST', '/api/2fa/generate', { token, body: { lang: 'en', user_id: b.adminId } }),
    statuses: [403, 404, 422],
  },
  {
    endpoint: 'POST /api/2fa/verify',
    call: (token) => app.call('POST', '/api/2fa/verify', { token, body: { code: '123456', user_id: b.adminId, remember: true } }),
    statuses: [403, 404, 422],
  },
  {
    endpoint: 'POST /api/payment-types',
    call: (token) => app.call('POST', '/api/payment-types', { token, body: { imei: b.imei, lang: 'en' } }),
    statuses: [403, 404, 422],
  },
  {
    endpoint: 'GET /api/validate/imei',
    call: (token) => app.call('GET', `/api/validate/imei?imei=${b.imei}&subsiteID=0`, { token }),
    statuses: [422],
  },
  {
    endpoint: 'POST /api/register',
    call: (token) => app.call('POST', '/api/register', { token, body: registration(b.imei) }),
    statuses: [422],
  },
  {
    endpoint: 'POST /api/admin/tracker-stock',
    call: (token) => app.call('POST', '/api/admin/tracker-stock', { token, body: { imeis: [b.imei], model: 'Hijacked', protocol: 'gt06' } }),
    statuses: [403],
  },
  {
    endpoint: 'GET /api/tracking/history',
    // The test clock's day (2026-03-02 in Stockholm): a valid date, so only the unit's account can refuse it.
    call: (token) => app.call('GET', `/api/tracking/history?unitId=${b.unitId}&date=${app.clock.now().toISOString().slice(0, 10)}`, { token }),
    statuses: [404],
  },
  {
    endpoint: 'GET /api/admin/tracker-stock',
    call: (token) => app.call('GET', `/api/admin/tracker-stock?q=${b.imei}`, { token }),
    statuses: [403],
  },
  // Dead letters are platform-wide and for support staff only: administrators and users of any account are refused.
  {
    endpoint: 'POST /api/admin/dead-letters/jobs/{id}/retry',
    call: (token) => app.call('POST', '/api/admin/dead-letters/jobs/1/retry', { token }),
    statuses: [403],
  },
  {
    endpoint: 'POST /api/admin/dead-letters/deliveries/retry',
    call: (token) => app.call('POST', '/api/admin/dead-letters/deliveries/retry', { token, body: { eventId: 1, subscriber: 'any' } }),
    statuses: [403],
  },
  {
    endpoint: 'DELETE /api/notifications/push/subscriptions/{id}',
    call: (token) => app.call('DELETE', `/api/notifications/push/subscriptions/${notifications.bSubscriptionId}`, { token }),
    statuses: [404],
  },
  ...unitCases,
  ...tripCases,
  ...placeCases,
  ...geofenceCases,
  ...alarmCases,
  ...purposeCases,
  ...carInfoCases,
  ...userAdminCases,
  ...receiverCases,
  ...bookingCases,
  ...safeHomeCases,
  ...reportCases,
  ...benefitCases,
];

/** Parameter and body field names that name an object of some account. Sub-site ids select a brand, not a tenant. */
const OBJECT_REFERENCE = /(^id$|Id$|_id$|ID$|imei)/i;
const NOT_A_TENANT_OBJECT = /subsite/i;

interface OpenApiOperation {
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface JsonSchema {
  properties?: Record<string, unknown>;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
}

function fieldNames(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  return [
    ...Object.keys(schema.properties ?? {}),
    ...(schema.oneOf ?? []).flatMap(fieldNames),
    ...(schema.anyOf ?? []).flatMap(fieldNames),
  ];
}

describe('account isolation', () => {
  test('every endpoint that takes an id or IMEI has an isolation case', async () => {
    const response = await app.api.handle(new Request('http://localhost/api/docs/json'));
    const document = (await response.json()) as { paths: Record<string, Record<string, OpenApiOperation>> };
    const idTaking: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const names = [
          ...(operation.parameters ?? []).map((parameter) => parameter.name),
          ...fieldNames(operation.requestBody?.content?.['application/json']?.schema),
        ];
        if (names.some((name) => OBJECT_REFERENCE.test(name) && !NOT_A_TENANT_OBJECT.test(name))) {
          idTaking.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(idTaking.length).toBeGreaterThanOrEqual(8);
    const covered = new Set(cases.map((c) => c.endpoint));
    expect(idTaking.filter((endpoint) => !covered.has(endpoint))).toEqual([]);
    // Every case names an endpoint that exists.
    const all = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((m) => `${m.toUpperCase()} ${path}`));
    expect([...covered].filter((endpoint) => !all.includes(endpoint))).toEqual([]);
  });

  test("a user of A naming B's objects is refused and learns nothing", async () => {
    const before = await snapshotOfB();
    const secrets = [b.adminEmail, b.userEmail, b.unitName];
    for (const c of cases) {
      for (const caller of callers) {
        const result = await c.call(caller.token);
        const seen = { endpoint: c.endpoint, caller: caller.role, status: result.status, success: result.body.success, data: result.body.data };
        expect(seen).toEqual({ endpoint: c.endpoint, caller: caller.role, status: seen.status, success: false, data: null });
        expect({ endpoint: c.endpoint, caller: caller.role, allowed: c.statuses.includes(result.status) }).toEqual({
          endpoint: c.endpoint,
          caller: caller.role,
          allowed: true,
        });
        const text = JSON.stringify(result.body);
        for (const secret of secrets) expect({ endpoint: c.endpoint, leaks: text.includes(secret) }).toEqual({ endpoint: c.endpoint, leaks: false });
      }
    }
    // B is untouched: same users, passwords, sessions and units; no e-mail went to B; B still works.
    expect(await snapshotOfB()).toEqual(before);
    expect(app.smtp.inbox.filter((mail) => mail.to.includes(b.adminEmail) || mail.to.includes(b.userEmail))).toEqual([]);
    expect(await app.database.rows(sql`select 1 from mail_outbox where to_address in (${b.adminEmail}, ${b.userEmail})`)).toEqual([]);
    const stock = await app.database.rows<{ model: string; protocol: string }>(sql`select model, protocol from tracker_stock where imei = ${b.imei}`);
    expect(stock).toEqual([{ model: 'FMB920', protocol: 'teltonika' }]);
    expect((await app.call('GET', `/api/units/${b.unitId}`, { token: bToken })).status).toBe(200);
    expect((await app.call('GET', '/api/me', { token: bToken })).status).toBe(200);
    expect(await app.database.rows(sql`select 1 from users where email in ('eve@example.com', 'eve2@example.com')`)).toEqual([]);
  });

  test("lists never contain B's objects", async () => {
    for (const caller of callers) {
      const list = await app.call<Array<{ ID: number }>>('GET', '/api/units', { token: caller.token });
      expect(list.body.data!.map((unit) => unit.ID)).toEqual([a.unitId]);
      expect(JSON.stringify(list.body)).not.toContain(b.unitName);
      const live = await app.call<TrackedUnitList>('GET', '/api/tracking/units', { token: caller.token });
      expect(decodeUnitList(live.body.data!).units.map((unit) => unit.id)).toEqual([a.unitId]);
      expect(JSON.stringify(live.body)).not.toContain(b.unitName);
    }
  });

  test('inside one account an ordinary user cannot change the administrator', async () => {
    const userToken = callers[1]!.token;
    const result = await app.call('POST', '/api/user/update', {
      token: userToken,
      body: { userId: a.adminId, email: 'takeover@example.com', password: 'Taken-123!', current_password: a.password },
    });
    expect(result.status).toBe(404);
    expect(result.body.errors).toBe('Invalid user ID.');
    const [admin] = await app.database.rows<{ email: string }>(sql`select email from users where id = ${a.adminId}`);
    expect(admin!.email).toBe(a.adminEmail);
  });
});

let unitsBefore: unknown;

// After the parties exist and before any case runs (file-level hooks run in order, before every test).
beforeAll(async () => {
    const [department] = await app.database.rows<{ id: number }>(sql`
      insert into departments (account_id, name) values (${b.accountId}, 'Secret department of B') returning id`);
    const [profile] = await app.database.rows<{ id: number }>(sql`
      insert into feature_profiles (account_id, name) values (${b.accountId}, 'Secret profile of B') returning id`);
    await app.database.rows(sql`insert into unit_object_descriptions (unit_id, account_id, object_type, manufacturer, updated_at)
      values (${b.unitId}, ${b.accountId}, 'boat', 'Secret yard of B', now())`);
    const [image] = await app.database.rows<{ id: number }>(sql`
      insert into unit_images (unit_id, account_id, content_type, file_name, data, uploaded_at)
      values (${b.unitId}, ${b.accountId}, 'image/png', 'secret.png', ${new Uint8Array([0x89, 0x50, 0x4e, 0x47])}, now()) returning id`);
    await app.database.rows(sql`insert into unit_theft_reports (unit_id, account_id, stolen_from, recipients, updated_at)
      values (${b.unitId}, ${b.accountId}, 'Secret harbour of B', ${'{police@example.com}'}, now())`);
    await app.database.rows(sql`update units set car_usage = 'benefit', locked_by = ${b.adminId}, locked_at = now() where id = ${b.unitId}`);
    await app.services.units.addStock({ imeis: [bUnits.freshImei], model: 'FMB920', protocol: 'teltonika', subsiteID: null }, null);
    const [project] = await app.database.rows<{ id: number }>(sql`insert into projects (account_id, name) values (${b.accountId}, 'Secret project of B') returning id`);
    const [tag] = await app.database.rows<{ id: number }>(sql`insert into tags (account_id, name) values (${b.accountId}, 'Secret tag of B') returning id`);
    bUnits.projectId = project!.id;
    bUnits.tagId = tag!.id;
    bUnits.departmentId = department!.id;
    bUnits.featureProfileId = profile!.id;
    bUnits.imageId = image!.id;
    unitsBefore = await unitSnapshotOfB();
});

async function unitSnapshotOfB() {
    return app.database.rows(sql`
      select to_jsonb(u) - 'updated_at' as unit,
             (select count(*)::int from unit_images where unit_id = u.id) as images,
             (select count(*)::int from unit_name_history where unit_id = u.id) as names,
             (select count(*)::int from unit_lock_log where unit_id = u.id) as lock_log,
             (select count(*)::int from device_commands where unit_id = u.id) as commands,
             (select count(*)::int from unit_setting_requests where unit_id = u.id) as requests,
             (select count(*)::int from unit_tracker_history where unit_id = u.id) as replacements,
             (select to_jsonb(o) - 'updated_at' from unit_object_descriptions o where o.unit_id = u.id) as description,
             (select to_jsonb(t) - 'updated_at' from unit_theft_reports t where t.unit_id = u.id) as theft,
             (select count(*)::int from units where imei = ${bUnits.freshImei}) as fresh_imei_used,
             (select count(*)::int from report_frequency_denials where user_id = ${b.userId}) as denials,
             (select json_agg(a.user_id order by a.user_id) from unit_access a where a.unit_id = u.id) as access,
             (select count(*)::int from unit_access where user_id = ${b.userId}) as user_access,
             (select json_agg(c.name order by c.name) from (
                select name from departments where account_id = ${b.accountId} union all select name from projects where account_id = ${b.accountId}
                union all select name from tags where account_id = ${b.accountId} union all select name from feature_profiles where account_id = ${b.accountId}) c) as catalog
      from units u where u.id = ${b.unitId}`);
}

describe("units: B's unit, its pictures, lock and settings", () => {
  test('after every case above, nothing of B changed and no mail went out', async () => {
    expect(await unitSnapshotOfB()).toEqual(unitsBefore as never);
    expect(app.smtp.inbox.filter((mail) => mail.to.includes('police@example.com'))).toEqual([]);
    for (const caller of callers) {
      const list = await app.call<Array<{ ID: number; Department: unknown }>>('GET', '/api/units', { token: caller.token });
      expect(JSON.stringify(list.body)).not.toContain('Secret department of B');
      const options = await app.call('GET', '/api/units/options', { token: caller.token });
      expect(JSON.stringify(options.body)).not.toContain('Secret');
    }
  });
});

// B's trip (after the parties exist, before any case runs).
beforeAll(async () => {
  const insertTrip = async (unitId: number, accountId: number) => {
    const [row] = await app.database.query<{ id: number | string }>(
      `INSERT INTO trips (unit_id, account_id, start_time, stop_time, start_geom, stop_geom, odometer_start_m, odometer_stop_m,
                          odometer_source, distance_m, type, purpose, detection)
       VALUES ($1, $2, '2026-03-01T08:00:00Z', '2026-03-01T08:30:00Z', ST_SetSRID(ST_MakePoint(18.07, 59.33), 4326),
               ST_SetSRID(ST_MakePoint(18.0, 59.36), 4326), 0, 20000, 'gps', 20000, 'business', 'Secret errand', 'ignition')
       RETURNING id`,
      [unitId, accountId],
    );
    return Number(row!.id);
  };
  trips.bTripId = await insertTrip(b.unitId, b.accountId);
  trips.aTripId = await insertTrip(a.unitId, a.accountId);
  trips.bTripBefore = await app.database.query('SELECT * FROM trips WHERE unit_id = $1', [b.unitId]);
  const [attest] = await app.database.query<{ id: number }>(
    `INSERT INTO trip_attests (account_id, user_id, period, from_time, to_time, status, note, attested_by, attested_at, changed_by, changed_at)
     VALUES ($1, $2, '2026-02', '2026-01-31T23:00:00Z', '2026-02-28T23:00:00Z', 'attested', 'Secret attest of B', $2, now(), $2, now())
     RETURNING id`,
    [b.accountId, b.userId],
  );
  trips.bAttestId = attest!.id;
  trips.bAttestBefore = await app.database.query('SELECT * FROM trip_attests WHERE account_id = $1', [b.accountId]);
});

describe("trips: B's trip", () => {
  test('after every case above, B’s trip is as it was and no driver was checked in on B’s unit', async () => {
    expect(await app.database.query('SELECT * FROM trips WHERE unit_id = $1', [b.unitId])).toEqual(trips.bTripBefore as never);
    expect(await app.database.query('SELECT 1 FROM trip_driver_checkins WHERE unit_id = $1', [b.unitId])).toEqual([]);
    expect(await app.database.query('SELECT 1 FROM trip_driver_checkins WHERE user_id = $1', [b.userId])).toEqual([]);
    expect(await app.database.query('SELECT * FROM trip_attests WHERE account_id = $1', [b.accountId])).toEqual(trips.bAttestBefore as never);
    expect(await app.database.query('SELECT 1 FROM trip_attest_log WHERE account_id = $1', [b.accountId])).toEqual([]);
  });
});

// B's default purpose (after the parties exist, before any case runs).
beforeAll(async () => {
  const [row] = await app.database.query<{ id: number }>(
    "INSERT INTO purposes (account_id, name, description, created_at) VALUES ($1, 'Secret purpose of B', 'Secret', now()) RETURNING id",
    [b.accountId],
  );
  purposes.bPurposeId = row!.id;
  purposes.bBefore = await app.database.query('SELECT * FROM purposes WHERE account_id = $1', [b.accountId]);
});

describe("purposes: B's default purpose", () => {
  test('after every case above, B’s purposes are as they were and A does not see them', async () => {
    expect(await app.database.query('SELECT * FROM purposes WHERE account_id = $1', [b.accountId])).toEqual(purposes.bBefore as never);
    for (const caller of callers) {
      const list = await app.call('GET', '/api/purposes', { token: caller.token });
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain('Secret purpose of B');
    }
  });
});

// B's place (assigned to B's unit) and A's place, after the parties exist and before any case runs.
beforeAll(async () => {
  const insertPlace = async (accountId: number, unitId: number, label: string) => {
    const [row] = await app.database.query<{ id: number }>(
      `INSERT INTO places (account_id, label, address, center, radius_m) VALUES ($1, $2, 'Secret road 1', ST_SetSRID(ST_MakePoint(18.07, 59.33), 4326)::geography, 200)
       RETURNING id`,
      [accountId, label],
    );
    await app.database.query('INSERT INTO place_units (place_id, unit_id, account_id) VALUES ($1, $2, $3)', [row!.id, unitId, accountId]);
    await app.database.query(
      `INSERT INTO place_rules (place_id, kind, days, from_minute, to_minute, category, account_id) VALUES ($1, 'start', '{1,2,3,4,5}', 0, 1440, 'private', $2)`,
      [row!.id, accountId],
    );
    return Number(row!.id);
  };
  places.bPlaceId = await insertPlace(b.accountId, b.unitId, 'Secret place of B');
  places.aPlaceId = await insertPlace(a.accountId, a.unitId, 'Place of A');
  places.bBefore = await placeSnapshotOfB();
});

async function placeSnapshotOfB() {
  return app.database.query(
    `SELECT p.id, p.label, p.address, ST_AsText(p.center) AS center, p.radius_m,
            (SELECT json_agg(unit_id ORDER BY unit_id) FROM place_units WHERE place_id = p.id) AS units,
            (SELECT json_agg(json_build_object('kind', kind, 'other', other_place_id, 'category', category) ORDER BY id) FROM place_rules WHERE place_id = p.id) AS rules
     FROM places p WHERE p.account_id = $1 ORDER BY p.id`,
    [b.accountId],
  );
}

describe("places: B's place", () => {
  test('after every case above, B’s place is as it was, A’s place holds none of B, and no list shows B’s place', async () => {
    expect(await placeSnapshotOfB()).toEqual(places.bBefore as never);
    expect(await app.database.query('SELECT unit_id FROM place_units WHERE place_id = $1', [places.aPlaceId])).toEqual([{ unit_id: a.unitId }]);
    expect(await app.database.query('SELECT 1 FROM place_rules WHERE other_place_id = $1', [places.bPlaceId])).toEqual([]);
    expect(await app.database.query('SELECT 1 FROM places WHERE account_id = $1 AND label = $2', [a.accountId, 'Hijacked place'])).toEqual([]);
    for (const caller of callers) {
      const list = await app.call('GET', '/api/places', { token: caller.token });
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain('Secret place of B');
    }
  });
});

// B's browser push subscription, after the parties exist and before any case runs.
beforeAll(async () => {
  const subscribed = await app.call<{ id: number }>('POST', '/api/notifications/push/subscriptions', {
    token: bToken,
    body: { endpoint: 'https://push.example.com/send/b-secret', keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) } },
  });
  notifications.bSubscriptionId = subscribed.body.data!.id;
});

describe("notifications: B's push subscription", () => {
  test('after every case above, B still has it', async () => {
    const listed = await app.call<Array<{ id: number }>>('GET', '/api/notifications/push/subscriptions', { token: bToken });
    expect(listed.body.data!.map((one) => one.id)).toEqual([notifications.bSubscriptionId]);
  });
});

// --- Geofences: B's zone (assigned to B's unit, with a logged crossing) and A's zone, before any case runs. ---
beforeAll(async () => {
  const insertZone = async (accountId: number, unitId: number, name: string) => {
    const [row] = await app.database.query<{ id: number }>(
      `INSERT INTO geofences (account_id, name, shape, geom, radius_m) VALUES ($1, $2, 'circle', ST_GeogFromText('SRID=4326;POINT(18.07 59.33)'), 500)
       RETURNING id`,
      [accountId, name],
    );
    await app.database.query('INSERT INTO geofence_units (geofence_id, unit_id, account_id) VALUES ($1, $2, $3)', [row!.id, unitId, accountId]);
    return Number(row!.id);
  };
  geofences.bZoneId = await insertZone(b.accountId, b.unitId, 'Secret zone of B');
  geofences.aZoneId = await insertZone(a.accountId, a.unitId, 'Zone of A');
  await app.database.query(
    `INSERT INTO geofence_events (account_id, geofence_id, unit_id, transition, at, lat, lon) VALUES ($1, $2, $3, 'entered', now(), 59.33, 18.07)`,
    [b.accountId, geofences.bZoneId, b.unitId],
  );
  geofences.bBefore = await geofenceSnapshotOfB();
});

async function geofenceSnapshotOfB() {
  return app.database.query(
    `SELECT z.id, z.name, ST_AsText(z.geom) AS geom, z.radius_m, z.active,
            (SELECT json_agg(unit_id ORDER BY unit_id) FROM geofence_units WHERE geofence_id = z.id) AS units,
            (SELECT count(*)::int FROM geofence_events WHERE geofence_id = z.id) AS events
     FROM geofences z WHERE z.account_id = $1 ORDER BY z.id`,
    [b.accountId],
  );
}

describe("geofences: B's zone", () => {
  test('after every case above, B’s zone is as it was, A’s zone holds none of B, and no list or log shows B’s zone', async () => {
    expect(await geofenceSnapshotOfB()).toEqual(geofences.bBefore as never);
    expect(await app.database.query('SELECT unit_id FROM geofence_units WHERE geofence_id = $1', [geofences.aZoneId])).toEqual([{ unit_id: a.unitId }]);
    expect(await app.database.query('SELECT 1 FROM geofences WHERE account_id = $1 AND name = $2', [a.accountId, 'Hijacked zone'])).toEqual([]);
    for (const caller of callers) {
      for (const path of ['/api/geofences', '/api/geofences/events']) {
        const list = await app.call('GET', path, { token: caller.token });
        expect(list.status).toBe(200);
        expect(JSON.stringify(list.body)).not.toContain('Secret zone of B');
      }
    }
  });
});
// --- end of geofences ---
// --- Alarms: B's open alarm stays open and unseen by A. ---
beforeAll(async () => {
  const raised = await app.platform.database.transaction((tx) =>
    app.services.alarms.raise(tx, { accountId: b.accountId, unitId: b.unitId, type: 'sos', at: new Date('2026-03-01T10:00:00Z'), latitude: 59.33, longitude: 18.07 }),
  );
  alarmIds.b = raised.alarmId;
});

describe("alarms: B's alarm", () => {
  test('after every case above, B’s alarm is still open, and no list or bell of A shows it', async () => {
    expect(await app.database.query('SELECT acknowledged_at FROM alarms WHERE id = $1', [alarmIds.b])).toEqual([{ acknowledged_at: null }]);
    for (const caller of callers) {
      for (const path of ['/api/alarms', '/api/alarms/summary']) {
        const list = await app.call('GET', path, { token: caller.token });
        expect(list.status).toBe(200);
        expect(JSON.stringify(list.body)).not.toContain(b.unitName);
        expect(JSON.stringify(list.body)).not.toContain(`"id":${alarmIds.b},`);
      }
    }
  });
});
// --- end of alarms ---

// --- Alarm receivers: B's receiver on B's unit and BLE tag; A's receiver on A's unit. ---
beforeAll(async () => {
  const directory = app.services.alarmReceivers;
  receivers.bBleId = (await app.services.bleDevices.add(b.accountId, { mac: 'B0B0B0000001', name: 'Secret tag of B', kind: 'beacon' })).id;
  receivers.aBleId = (await app.services.bleDevices.add(a.accountId, { mac: 'A0A0A0000001', name: 'Tag of A', kind: 'beacon' })).id;
  await app.database.transaction(async (query) => {
    receivers.bReceiverId = await directory.createReceiver(query, b.accountId, {
      name: 'Secret receiver of B',
      email: 'secret.receiver@example.com',
      countryCode: '46',
      phone: '701234598',
      unitIds: [b.unitId],
      bleDeviceIds: [receivers.bBleId],
    });
    receivers.aReceiverId = await directory.createReceiver(query, a.accountId, { name: 'Receiver of A', email: 'a.receiver@example.com', unitIds: [a.unitId] });
  });
  receivers.bBefore = await receiverSnapshotOfB();
});

async function receiverSnapshotOfB() {
  return app.database.query(
    `SELECT r.*, (SELECT json_agg(unit_id ORDER BY unit_id) FROM alarm_receiver_units WHERE receiver_id = r.id) AS units,
            (SELECT json_agg(ble_device_id ORDER BY ble_device_id) FROM alarm_receiver_ble_units WHERE receiver_id = r.id) AS ble
     FROM alarm_receivers r WHERE r.account_id = $1 ORDER BY r.id`,
    [b.accountId],
  );
}

describe("alarm receivers: B's receiver", () => {
  test('after every case above, B’s receiver is as it was, A’s receiver holds none of B’s units, no list shows B', async () => {
    expect(await receiverSnapshotOfB()).toEqual(receivers.bBefore as never);
    expect(await app.database.query('SELECT unit_id FROM alarm_receiver_units WHERE receiver_id = $1', [receivers.aReceiverId])).toEqual([{ unit_id: a.unitId }]);
    expect(await app.database.query('SELECT 1 FROM alarm_receiver_ble_units WHERE receiver_id = $1', [receivers.aReceiverId])).toEqual([]);
    expect(await app.database.query('SELECT 1 FROM alarm_receivers WHERE account_id = $1 AND name = $2', [a.accountId, 'Hijacked'])).toEqual([]);
    for (const caller of callers) {
      for (const [method, path, body] of [
        ['GET', '/api/admin/alarm-receiver/list', undefined],
        ['GET', '/api/admin/user/list?limit=-1', undefined],
        ['POST', '/api/admin/alarm-receiver/get-units', { receiverId: 0 }],
      ] as const) {
        const result = await app.call(method, path, { token: caller.token, body });
        expect(JSON.stringify(result.body)).not.toMatch(/Secret (receiver|tag) of B|secret\.receiver|B0B0B0/);
        expect(JSON.stringify(result.body)).not.toContain(b.adminEmail);
      }
    }
  });
});
// --- end of alarm receivers ---

// B's booking of its unit, after the parties exist and before any case runs.
beforeAll(async () => {
  const booked = await app.call<{ Booking: { ID: number } }>('POST', '/api/car-schedule/save', {
    token: bToken,
    body: bookingBody(b.imei, { driver_id: b.userId }),
  });
  bookings.bBookingId = booked.body.data!.Booking.ID;
});

describe("bookings: B's booking", () => {
  test('after every case above, B’s booking is as it was and A booked nothing', async () => {
    const rows = await app.database.query<{ unit_id: number; driver_id: number; purpose: string; starts_at: string }>(
      `SELECT unit_id, driver_id, purpose, to_char(starts_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS starts_at FROM bookings WHERE account_id = $1`,
      [b.accountId],
    );
    expect(rows).toEqual([{ unit_id: b.unitId, driver_id: b.userId, purpose: 'Hijacked', starts_at: '2026-03-10 09:00' }]);
    expect(await app.database.query('SELECT 1 FROM bookings WHERE account_id = $1', [a.accountId])).toEqual([]);
    const week = await app.call('GET', '/api/car-schedule/week?week_day=2026-03-10', { token: bToken });
    expect(JSON.stringify(week.body)).toContain(String(bookings.bBookingId));
  });
});

// --- bulk jobs ---
beforeAll(async () => {
  const bAdmin = await app.login({ email: b.adminEmail, password: b.password, subsiteId: 0 });
  const started = await app.call<{ id: number }>('POST', '/api/admin/bulk-jobs', {
    token: bAdmin,
    body: { target: 'users', ids: [b.userId], task: { kind: 'realtimeMap', enabled: true } },
  });
  expect(started.status).toBe(200);
  bulkJobs.bJobId = started.body.data!.id;
});

// --- reports: B's scheduled report ---
beforeAll(async () => {
  const created = await app.call<{ id: number }>('POST', '/api/reports/schedules', { token: bToken, body: scheduleBody({ name: 'B weekly' }) });
  expect(created.status).toBe(200);
  reports.bScheduleId = created.body.data!.id;
});

describe("reports: B's scheduled report", () => {
  test('after every case above, B’s schedule is as it was and A scheduled nothing', async () => {
    const rows = await app.database.query<{ name: string; account_id: number }>('SELECT name, account_id FROM report_schedules WHERE id = $1', [reports.bScheduleId]);
    expect(rows).toEqual([{ name: 'B weekly', account_id: b.accountId }]);
    expect(await app.database.query('SELECT 1 FROM report_schedules WHERE account_id = $1', [a.accountId])).toEqual([]);
  });
});
