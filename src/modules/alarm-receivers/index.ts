import { Elysia } from 'elysia';
import { defineModule } from '../../composition';
import { ok } from '../../lib/http';
import { authGuard, requireAdministration } from '../auth';
import type { AuthService } from '../auth/service';
import type { BleDeviceService } from '../io/service';
import type { UnitService } from '../units/service';
import {
  alarmReceiverInputSchema,
  alarmTypeToggleSchema,
  alertNumberIdParamsSchema,
  alertNumberInputSchema,
  languageTimeZoneSchema,
  receiverIdParamsSchema,
  receiverListQuerySchema,
  receiverUnitParamsSchema,
  receiverUnitsQuerySchema,
  unitAssignmentSchema,
  userListQuerySchema,
} from './model';
import { type AlarmReceiverService, createAlarmReceiverService } from './service';

export type { AlarmReceiverService, AlarmRecipient, AlarmRecipientDirectory, NewReceiver } from './service';

const security = [{ bearer: [] }];

/**
 * Alarm receivers, the account's alarm language, time zone and SMS credits, and the parent account's alert numbers
 * (spec §2 /administration/configure-alarm-receiver and /administration/configure-alert-numbers, §7 with its paths and
 * fields). Administrators of the account; support or a reseller inside it read only.
 */
export function alarmReceiverRoutes(receivers: AlarmReceiverService, auth: AuthService) {
  return new Elysia({ prefix: '/api/admin', tags: ['alarm receivers'] })
    .use(authGuard(auth))
    .get('/alarm-receiver/list', async ({ actor, query }) => ok(await receivers.list(requireAdministration(actor), query.q)), {
      query: receiverListQuerySchema,
      detail: { summary: 'The account’s alarm receivers searched by name, e-mail or phone (data.alarmReceivers), and the SMS credits left (data.SmsCredits)', security },
    })
    .get('/alarm-receiver/list/gps/:unitId', async ({ actor, params }) => ok(await receivers.listOfUnit(requireAdministration(actor), 'gps', params.unitId)), {
      params: receiverUnitParamsSchema,
      detail: { summary: 'The alarm receivers of one GPS unit (with terminal_id and device_type)', security },
    })
    .get('/alarm-receiver/list/ble/:unitId', async ({ actor, params }) => ok(await receivers.listOfUnit(requireAdministration(actor), 'ble', params.unitId)), {
      params: receiverUnitParamsSchema,
      detail: { summary: 'The alarm receivers of one BLE unit (with terminal_id and device_type)', security },
    })
    .post('/alarm-receiver/add-edit', async ({ actor, body }) => ok(await receivers.save(requireAdministration(actor), body)), {
      body: alarmReceiverInputSchema,
      detail: { summary: 'Creates (id 0) or edits an alarm receiver; terminal_id and device_type link one unit (the unit page). Answers data.id', security },
    })
    .get('/alarm-receiver/:id/delete', async ({ actor, params }) => ok(await receivers.remove(requireAdministration(actor), params.id)), {
      params: receiverIdParamsSchema,
      detail: { summary: 'Deletes an alarm receiver', security },
    })
    .post('/alarm-receiver/get-units', async ({ actor, body }) => ok(await receivers.units(requireAdministration(actor), body.receiverId, body.memberId)), {
      body: receiverUnitsQuerySchema,
      detail: { summary: 'The account’s GPS (data.gps) and BLE (data.ble) units, the receiver’s selected', security },
    })
    .post('/alarm-receiver/unit/assign', async ({ actor, body }) => ok(await receivers.assign(requireAdministration(actor), body)), {
      body: unitAssignmentSchema,
      detail: { summary: 'Sets the receiver’s units (terminals: terminal_id and device_type gps or ble; at least one)', security },
    })
    .post('/alarm-receiver/alarm-type/toggle', async ({ actor, body }) => ok(await receivers.toggle(requireAdministration(actor), body)), {
      body: alarmTypeToggleSchema,
      detail: { summary: 'Turns a receiver’s security or function alarms on (state 1) or off (0)', security },
    })
    .get('/user/list', async ({ actor, query }) => ok(await receivers.users(requireAdministration(actor), query.limit)), {
      query: userListQuerySchema,
      detail: { summary: 'The account’s users for choosing a receiver (data.user; limit -1 for all), those already receivers marked IsReceiver', security },
    })
    .get('/alertconfig/list', async ({ actor }) => ok(await receivers.smsCredit(requireAdministration(actor))), {
      detail: { summary: 'The account’s SMS credits left (data.sms_credit)', security },
    })
    .get('/alertconfig/language-timezone/get', async ({ actor }) => ok(await receivers.languageTimeZone(requireAdministration(actor))), {
      detail: { summary: 'The language and time zone alarms are written in (data.Language, data.TimeZone) and the zones on offer', security },
    })
    .post('/alertconfig/language-timezone/save', async ({ actor, body }) => ok(await receivers.saveLanguageTimeZone(requireAdministration(actor), body)), {
      body: languageTimeZoneSchema,
      detail: { summary: 'Saves the alarm language (sv, en, no) and time zone', security },
    })
    .get('/alert-numbers', async ({ actor }) => ok(await receivers.alertNumbers(requireAdministration(actor))), {
      detail: { summary: 'The parent account’s alert numbers (its users only)', security },
    })
    .post('/alert-numbers', async ({ actor, body }) => ok(await receivers.saveAlertNumber(requireAdministration(actor), null, body)), {
      body: alertNumberInputSchema,
      detail: { summary: 'Adds an alert number (§5 phone rules, no duplicates)', security },
    })
    .post('/alert-numbers/:id', async ({ actor, params, body }) => ok(await receivers.saveAlertNumber(requireAdministration(actor), params.id, body)), {
      params: alertNumberIdParamsSchema,
      body: alertNumberInputSchema,
      detail: { summary: 'Edits an alert number', security },
    })
    .delete('/alert-numbers/:id', async ({ actor, params }) => ok(await receivers.removeAlertNumber(requireAdministration(actor), params.id)), {
      params: alertNumberIdParamsSchema,
      detail: { summary: 'Removes an alert number', security },
    });
}

/** Alarm receivers: who gets an account's alarms (the alarm engine asks `recipientsOf` and `takeSmsCredits`). */
export const alarmReceiversModule = defineModule({
  name: 'alarmReceivers',
  needs: ['units', 'bleDevices'],
  create: (platform, { units, bleDevices }: { units: UnitService; bleDevices: BleDeviceService }) => createAlarmReceiverService(platform, units, bleDevices),
  routes: (receivers, { auth }: { auth: AuthService }) => alarmReceiverRoutes(receivers, auth),
});
