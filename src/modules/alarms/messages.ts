import { translate } from '../../lib/i18n';
import type { NotificationMessage } from '../../lib/notify';
import type { AlarmLanguage } from '../alarm-receivers/model';
import type { AlarmType } from './model';

/**
 * An alarm's message in a receiver's language and time zone: unit name and registration, what happened, the local time,
 * the address and a link to the unit on the map (the channels add the public address to the link).
 */
export interface AlarmFacts {
  alarmId: number;
  unitId: number;
  unitName: string;
  registration: string | null;
  type: AlarmType;
  at: Date;
  latitude: number | null;
  longitude: number | null;
  address: string | null;
  details: Record<string, string | number | boolean | null>;
}

const LOCALES: Record<AlarmLanguage, string> = { sv: 'sv-SE', en: 'en-GB', no: 'nb-NO' };

/** "26 Nov 2026, 06:01 CET" in the receiver's language and zone. */
export function localTime(at: Date, language: AlarmLanguage, timeZone: string): string {
  return new Intl.DateTimeFormat(LOCALES[language], {
    timeZone,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(at);
}

/** The map route with the unit selected. */
export function mapLink(unitId: number): string {
  return `/user/realtime-tracking?unit=${unitId}`;
}

/** What happened, in words: the type's text with its details (zone name, speed and limit, input value...). */
export function describe(type: AlarmType, details: AlarmFacts['details'], language: AlarmLanguage): string {
  const params: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(details)) {
    if (value === null) continue;
    params[key] = typeof value === 'boolean' ? translate(language, value ? 'alarms.value.on' : 'alarms.value.off') : value;
  }
  // A type with variants (not_home: away or without a position, on time or late) names its variant in the details.
  const key = typeof details.variant === 'string' ? `alarms.type.${type}.${details.variant}` : `alarms.type.${type}`;
  return translate(language, key, params);
}

export function alarmMessage(facts: AlarmFacts, language: AlarmLanguage, timeZone: string): NotificationMessage {
  const unit = facts.registration ? `${facts.unitName} (${facts.registration})` : facts.unitName;
  const place =
    facts.address ??
    (facts.latitude !== null && facts.longitude !== null ? `${facts.latitude.toFixed(5)}, ${facts.longitude.toFixed(5)}` : translate(language, 'alarms.message.noPosition'));
  const what = describe(facts.type, facts.details, language);
  return {
    title: translate(language, 'alarms.message.title', { unit: facts.unitName, what }),
    body: translate(language, 'alarms.message.body', { unit, what, time: localTime(facts.at, language, timeZone), place }),
    url: mapLink(facts.unitId),
  };
}

/** GSM 03.38's basic set (with the Nordic letters), whose messages take 160 characters a segment; others 70 (UCS-2). */
const GSM7 = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM7_EXTENDED = new Set('^{}\\[~]|€');

/** SMS segments a text takes: one credit each. */
export function smsSegments(text: string): number {
  let septets = 0;
  let gsm = true;
  for (const char of text) {
    if (GSM7.has(char)) septets += 1;
    else if (GSM7_EXTENDED.has(char)) septets += 2;
    else {
      gsm = false;
      break;
    }
  }
  if (gsm) return septets <= 160 ? 1 : Math.ceil(septets / 153);
  const units = [...text].reduce((sum, char) => sum + (char.codePointAt(0)! > 0xffff ? 2 : 1), 0);
  return units <= 70 ? 1 : Math.ceil(units / 67);
}
