/**
 * Swedish congestion tax (trängselskatt), Stockholm and Göteborg: a pure tariff engine. Given the passages
 * of one vehicle through payment stations it answers what each passage costs and what each day costs.
 *
 * Sources (reference/domain.md §4): Lag (2004:629) bilaga 1 (Stockholm) and 2 (Göteborg), SFS 2018:200,
 * Skatteverket rättslig vägledning 391391, Transportstyrelsen (hours and amounts, Backa exception).
 * Re-check the amounts before go-live (domain.md, open item 4).
 *
 * Rules applied, in this order:
 * 1. The time of a passage is the hour and the started minute, Swedish local time (Europe/Stockholm).
 * 2. Day rules: no tax on Saturdays, Sundays, public holidays (helgdagar), days before a public holiday
 *    (Stockholm charges the day before Good Friday, Ascension Day and All Saints' Day, 30 April and 5 June),
 *    July (Stockholm charges the first five weekdays of July).
 * 3. Station rules: Backa control points (K1-K7) are never charged; Göteborg stations 17-21 (Backa) only for
 *    through-traffic, i.e. when a control point is passed within 30 minutes before or after; Marieholmstunneln
 *    from 16 December 2020.
 * 4. Stockholm Essingeleden: one passage that crosses several of its stations is charged once (at the time of
 *    the first station).
 * 5. Göteborg single-charge rule: taxed passages within 60 minutes of the first are taxed once, at the highest
 *    amount among them.
 * 6. Daily maximum per vehicle and city: Stockholm 135 kr in high season and 105 kr in low season, Göteborg 60 kr.
 */
import { addToDay, dayOf, weekday, zoneOffsetMs } from '../../lib/time';

export const TAX_TIME_ZONE = 'Europe/Stockholm';

export const CITIES = ['stockholm', 'goteborg'] as const;
export type City = (typeof CITIES)[number];
export const ZONES = ['inner', 'essingeleden', 'goteborg'] as const;
export type Zone = (typeof ZONES)[number];
/** charge: an ordinary payment station; backa: Göteborg stations 17-21; control: a Backa control point (no tax). */
export type StationKind = 'charge' | 'backa' | 'control';

export interface StationRef {
  city: City;
  zone: Zone;
  name: string;
  kind: StationKind;
  /** First day the station is charged (YYYY-MM-DD); absent: as long as the tariff applies. */
  chargedFrom?: string;
}

export interface PassageInput {
  time: Date;
  station: StationRef;
}

export const EXEMPT_REASONS = [
  'weekend',
  'holiday',
  'dayBeforeHoliday',
  'july',
  'outsideHours',
  'controlPoint',
  'backaLocal',
  'notYetCharged',
  'noTariff',
  'samePassage',
  'singleCharge',
  'dailyMax',
] as const;
/** Why a passage costs less than its tariff amount (null: charged in full). */
export type ExemptReason = (typeof EXEMPT_REASONS)[number];

export interface ChargedPassage<P extends PassageInput = PassageInput> {
  /** The passage as given. */
  input: P;
  time: Date;
  station: StationRef;
  /** Swedish calendar day (YYYY-MM-DD) and local time of the passage (HH:MM). */
  date: string;
  localTime: string;
  /** The tariff amount at that time and place (kr), before the single-charge rule and the daily maximum. */
  tariff: number;
  /** What the passage actually costs (kr). */
  charged: number;
  reason: ExemptReason | null;
}

export interface CityDayCharge {
  city: City;
  /** Sum of the charged amounts (kr), at most `cap`. */
  total: number;
  cap: number;
  /** Whether the daily maximum reduced the day. */
  capped: boolean;
}

export interface DayCharge {
  date: string;
  total: number;
  cities: CityDayCharge[];
}

export interface ChargeResult<P extends PassageInput = PassageInput> {
  /** In time order. */
  passages: ChargedPassage<P>[];
  /** Days with passages, in order. */
  days: DayCharge[];
  total: number;
}

// ---------------------------------------------------------------------------------------------
// Calendar: Swedish public holidays (lag 1989:253) for any year.

/** Easter Sunday (Gregorian, anonymous algorithm) as YYYY-MM-DD. */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return ymd(year, month, day);
}

const ymd = (year: number, month: number, day: number) =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** The Saturday in [first, first + 6] of a month (midsommardagen, alla helgons dag). */
function saturdayFrom(year: number, month: number, firstDay: number): string {
  const start = ymd(year, month, firstDay);
  return addToDay(start, { days: (6 - weekday(start) + 7) % 7 });
}

export type HolidayName =
  | 'newYearsDay'
  | 'epiphany'
  | 'goodFriday'
  | 'easterSunday'
  | 'easterMonday'
  | 'mayDay'
  | 'ascensionDay'
  | 'nationalDay'
  | 'whitSunday'
  | 'midsummerDay'
  | 'allSaintsDay'
  | 'christmasDay'
  | 'boxingDay';

const holidayCache = new Map<number, Map<string, HolidayName>>();

/** The named Swedish public holidays of a year (Sundays are holidays too: see `isPublicHoliday`). */
export function swedishHolidays(year: number): Map<string, HolidayName> {
  let found = holidayCache.get(year);
  if (found) return found;
  const easter = easterSunday(year);
  found = new Map<string, HolidayName>([
    [ymd(year, 1, 1), 'newYearsDay'],
    [ymd(year, 1, 6), 'epiphany'],
    [addToDay(easter, { days: -2 }), 'goodFriday'],
    [easter, 'easterSunday'],
    [addToDay(easter, { days: 1 }), 'easterMonday'],
    [ymd(year, 5, 1), 'mayDay'],
    [addToDay(easter, { days: 39 }), 'ascensionDay'],
    [ymd(year, 6, 6), 'nationalDay'],
    [addToDay(easter, { days: 49 }), 'whitSunday'],
    [saturdayFrom(year, 6, 20), 'midsummerDay'],
    [saturdayFrom(year, 10, 31), 'allSaintsDay'],
    [ymd(year, 12, 25), 'christmasDay'],
    [ymd(year, 12, 26), 'boxingDay'],
  ]);
  holidayCache.set(year, found);
  return found;
}

export function holidayOf(date: string): HolidayName | null {
  return swedishHolidays(Number(date.slice(0, 4))).get(date) ?? null;
}

/** Helgdag: every Sunday and the named holidays. */
export function isPublicHoliday(date: string): boolean {
  return weekday(date) === 0 || holidayOf(date) !== null;
}

/** Stockholm charges these days although the next day is a public holiday. */
const STOCKHOLM_CHARGED_EVE: ReadonlySet<HolidayName> = new Set(['goodFriday', 'ascensionDay', 'allSaintsDay', 'mayDay', 'nationalDay']);

/** Midsommarafton: the Friday before midsommardagen. */
export function midsummerEve(year: number): string {
  return addToDay(saturdayFrom(year, 6, 20), { days: -1 });
}

/** Whether a July day is among the first five weekdays (Monday-Friday) of July. */
function firstFiveWeekdaysOfJuly(date: string): boolean {
  const year = Number(date.slice(0, 4));
  let count = 0;
  for (let day = 1; day <= 31; day++) {
    const current = ymd(year, 7, day);
    const dow = weekday(current);
    if (dow === 0 || dow === 6) continue;
    count += 1;
    if (current === date) return true;
    if (count === 5) return false;
  }
  return false;
}

/** Why no tax is taken in a city on a day, or null when the day is taxed. */
export function dayExemption(city: City, date: string): ExemptReason | null {
  const dow = weekday(date);
  if (dow === 0 || dow === 6) return 'weekend';
  if (holidayOf(date) !== null) return 'holiday';
  const month = date.slice(5, 7);
  if (month === '07') {
    if (city === 'goteborg' || !firstFiveWeekdaysOfJuly(date)) return 'july';
  }
  const tomorrow = addToDay(date, { days: 1 });
  if (isPublicHoliday(tomorrow)) {
    const next = holidayOf(tomorrow);
    if (city === 'goteborg' || next === null || !STOCKHOLM_CHARGED_EVE.has(next)) return 'dayBeforeHoliday';
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Tariffs.

/** Stockholm's tariff since 1 Jan 2020; Göteborg's amounts since 1 Jan 2015. Earlier passages: no tariff known here. */
export const TARIFF_VALID_FROM: Record<City, string> = { stockholm: '2020-01-01', goteborg: '2015-01-01' };

/** Each band: first minute of the day it applies from, and the amounts; the last band runs to 18:29. */
interface StockholmBand {
  from: number;
  innerLow: number;
  innerHigh: number;
  essLow: number;
  essHigh: number;
}
const hm = (hour: number, minute: number) => hour * 60 + minute;
const STOCKHOLM_BANDS: StockholmBand[] = [
  { from: hm(6, 0), innerLow: 15, innerHigh: 15, essLow: 15, essHigh: 15 },
  { from: hm(6, 30), innerLow: 25, innerHigh: 30, essLow: 22, essHigh: 27 },
  { from: hm(7, 0), innerLow: 35, innerHigh: 45, essLow: 30, essHigh: 40 },
  { from: hm(8, 30), innerLow: 25, innerHigh: 30, essLow: 22, essHigh: 27 },
  { from: hm(9, 0), innerLow: 15, innerHigh: 20, essLow: 15, essHigh: 20 },
  { from: hm(9, 30), innerLow: 11, innerHigh: 11, essLow: 11, essHigh: 11 },
  { from: hm(15, 0), innerLow: 15, innerHigh: 20, essLow: 15, essHigh: 20 },
  { from: hm(15, 30), innerLow: 25, innerHigh: 30, essLow: 22, essHigh: 27 },
  { from: hm(16, 0), innerLow: 35, innerHigh: 45, essLow: 30, essHigh: 40 },
  { from: hm(17, 30), innerLow: 25, innerHigh: 30, essLow: 22, essHigh: 27 },
  { from: hm(18, 0), innerLow: 15, innerHigh: 20, essLow: 15, essHigh: 20 },
];
const GOTEBORG_BANDS: Array<{ from: number; amount: number }> = [
  { from: hm(6, 0), amount: 9 },
  { from: hm(6, 30), amount: 16 },
  { from: hm(7, 0), amount: 22 },
  { from: hm(8, 0), amount: 16 },
  { from: hm(8, 30), amount: 9 },
  { from: hm(15, 0), amount: 16 },
  { from: hm(15, 30), amount: 22 },
  { from: hm(17, 0), amount: 16 },
  { from: hm(18, 0), amount: 9 },
];
/** Charged 06:00-18:29 in both cities. */
const FIRST_MINUTE = hm(6, 0);
const LAST_MINUTE = hm(18, 29);

export const DAILY_MAX = { stockholmHigh: 135, stockholmLow: 105, goteborg: 60 } as const;
/** Göteborg single-charge rule: passages within this many minutes of the first are taxed once. */
export const SINGLE_CHARGE_MINUTES = 60;
/** Backa: stations 17-21 are taxed when a control point is passed within this many minutes before or after. */
export const BACKA_WINDOW_MINUTES = 30;
/** Essingeleden: station passages this close (minutes) on one drive along the road count as one passage. */
export const ESSINGELEDEN_SAME_PASSAGE_MINUTES = 10;

/** Stockholm high season: 1 March to the day before midsommarafton, and 15 August to 30 November. */
export function stockholmHighSeason(date: string): boolean {
  const year = Number(date.slice(0, 4));
  const md = date.slice(5);
  if (md >= '08-15' && md <= '11-30') return true;
  return md >= '03-01' && date < midsummerEve(year);
}

export function dailyMax(city: City, date: string): number {
  if (city === 'goteborg') return DAILY_MAX.goteborg;
  return stockholmHighSeason(date) ? DAILY_MAX.stockholmHigh : DAILY_MAX.stockholmLow;
}

/** The tariff amount (kr) at a local minute of the day (0 outside 06:00-18:29), ignoring day rules. */
export function tariffAmount(city: City, zone: Zone, date: string, minuteOfDay: number): number {
  if (minuteOfDay < FIRST_MINUTE || minuteOfDay > LAST_MINUTE) return 0;
  if (city === 'goteborg') {
    let amount = 0;
    for (const band of GOTEBORG_BANDS) if (minuteOfDay >= band.from) amount = band.amount;
    return amount;
  }
  const high = stockholmHighSeason(date);
  let band = STOCKHOLM_BANDS[0]!;
  for (const candidate of STOCKHOLM_BANDS) if (minuteOfDay >= candidate.from) band = candidate;
  if (zone === 'essingeleden') return high ? band.essHigh : band.essLow;
  return high ? band.innerHigh : band.innerLow;
}

/** Swedish local day and minute of an instant, to the started minute (seconds dropped). */
export function localMinute(time: Date): { date: string; minute: number; text: string } {
  const local = time.getTime() + zoneOffsetMs(time.getTime(), TAX_TIME_ZONE);
  const minute = Math.floor((((local % 86_400_000) + 86_400_000) % 86_400_000) / 60_000);
  return {
    date: dayOf(time, TAX_TIME_ZONE),
    minute,
    text: `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`,
  };
}

// ---------------------------------------------------------------------------------------------

/** Minutes between two passages, each to its started minute (the law's resolution). */
const minutesBetween = (a: Date, b: Date) => Math.floor(b.getTime() / 60_000) - Math.floor(a.getTime() / 60_000);

/** Charges of one vehicle's passages (any order, any cities). */
export function computeCharges<P extends PassageInput>(input: readonly P[]): ChargeResult<P> {
  const sorted = [...input].sort((a, b) => a.time.getTime() - b.time.getTime());
  const passages: ChargedPassage<P>[] = sorted.map((given) => {
    const { time, station } = given;
    const local = localMinute(time);
    let reason: ExemptReason | null = null;
    let tariff = 0;
    if (station.kind === 'control') reason = 'controlPoint';
    else if (local.date < TARIFF_VALID_FROM[station.city]) reason = 'noTariff';
    else if (station.chargedFrom && local.date < station.chargedFrom) reason = 'notYetCharged';
    else {
      tariff = tariffAmount(station.city, station.zone, local.date, local.minute);
      reason = dayExemption(station.city, local.date) ?? (tariff === 0 ? 'outsideHours' : null);
    }
    return { input: given, time, station, date: local.date, localTime: local.text, tariff, charged: 0, reason };
  });

  // Backa: stations 17-21 only for through-traffic (a control point within 30 minutes before or after).
  const controls = passages.filter((p) => p.station.kind === 'control').map((p) => p.time);
  for (const passage of passages) {
    if (passage.station.kind !== 'backa' || passage.reason !== null) continue;
    const through = controls.some((t) => Math.abs(minutesBetween(t, passage.time)) <= BACKA_WINDOW_MINUTES);
    if (!through) passage.reason = 'backaLocal';
  }

  // Essingeleden: successive stations of one drive along it are one passage, charged at the first.
  let group: { start: ChargedPassage<P>; last: ChargedPassage<P>; stations: Set<string> } | null = null;
  for (const passage of passages) {
    if (passage.station.city !== 'stockholm') continue;
    if (passage.station.zone !== 'essingeleden') {
      group = null;
      continue;
    }
    const joins =
      group !== null &&
      !group.stations.has(passage.station.name) &&
      minutesBetween(group.last.time, passage.time) <= ESSINGELEDEN_SAME_PASSAGE_MINUTES;
    if (joins && group) {
      group.stations.add(passage.station.name);
      group.last = passage;
      if (passage.reason === null || passage.reason === 'outsideHours') passage.reason = 'samePassage';
    } else {
      group = { start: passage, last: passage, stations: new Set([passage.station.name]) };
    }
  }

  for (const passage of passages) if (passage.reason === null) passage.charged = passage.tariff;

  // Göteborg: within 60 minutes of the first taxed passage, only the highest amount is taxed.
  const goteborg = passages.filter((p) => p.station.city === 'goteborg' && p.reason === null);
  for (let i = 0; i < goteborg.length; ) {
    const first = goteborg[i]!;
    let j = i;
    let best = first;
    while (j < goteborg.length && goteborg[j]!.date === first.date && minutesBetween(first.time, goteborg[j]!.time) <= SINGLE_CHARGE_MINUTES) {
      if (goteborg[j]!.tariff > best.tariff) best = goteborg[j]!;
      j += 1;
    }
    for (let k = i; k < j; k++) {
      const member = goteborg[k]!;
      if (member === best) continue;
      member.charged = 0;
      member.reason = 'singleCharge';
    }
    i = j;
  }

  // Daily maximum per city, in time order.
  const days = new Map<string, DayCharge>();
  for (const passage of passages) {
    let day = days.get(passage.date);
    if (!day) {
      day = { date: passage.date, total: 0, cities: [] };
      days.set(passage.date, day);
    }
    let city = day.cities.find((c) => c.city === passage.station.city);
    if (!city) {
      city = { city: passage.station.city, total: 0, cap: dailyMax(passage.station.city, passage.date), capped: false };
      day.cities.push(city);
    }
    if (passage.charged > 0) {
      const room = city.cap - city.total;
      if (passage.charged > room) {
        passage.charged = Math.max(0, room);
        passage.reason = 'dailyMax';
        city.capped = true;
      }
      city.total += passage.charged;
      day.total += passage.charged;
    }
  }
  const dayList = [...days.values()];
  return { passages, days: dayList, total: dayList.reduce((sum, day) => sum + day.total, 0) };
}
