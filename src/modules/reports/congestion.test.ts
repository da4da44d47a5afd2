import { describe, expect, test } from 'bun:test';
import {
  type ChargeResult,
  computeCharges,
  dailyMax,
  dayExemption,
  easterSunday,
  type PassageInput,
  type StationRef,
  stockholmHighSeason,
  swedishHolidays,
  tariffAmount,
} from './congestion';

/** Cases from reference/domain.md §4 (Stockholm tariff since 2020, Göteborg since 2015). */

const danvikstull: StationRef = { city: 'stockholm', zone: 'inner', name: 'Danvikstull', kind: 'charge' };
const skansbron: StationRef = { city: 'stockholm', zone: 'inner', name: 'Skansbron', kind: 'charge' };
const storaEssingen: StationRef = { city: 'stockholm', zone: 'essingeleden', name: 'Stora Essingen', kind: 'charge' };
const fredhall: StationRef = { city: 'stockholm', zone: 'essingeleden', name: 'Fredhäll', kind: 'charge' };
const kristineberg: StationRef = { city: 'stockholm', zone: 'essingeleden', name: 'Kristineberg', kind: 'charge' };
const alvsborgsbron: StationRef = { city: 'goteborg', zone: 'goteborg', name: 'Älvsborgsbron', kind: 'charge' };
const tingstad: StationRef = { city: 'goteborg', zone: 'goteborg', name: 'Tingstadvägen', kind: 'charge' };
const backadalen: StationRef = { city: 'goteborg', zone: 'goteborg', name: 'Backadalen', kind: 'backa' };
const tuvevagen: StationRef = { city: 'goteborg', zone: 'goteborg', name: 'Tuvevägen', kind: 'control' };
const marieholmstunneln: StationRef = {
  city: 'goteborg',
  zone: 'goteborg',
  name: 'Marieholmstunneln avfart E6 norr',
  kind: 'charge',
  chargedFrom: '2020-12-16',
};

/** A passage at a Swedish local time (offset given: +01:00 winter, +02:00 summer). */
const at = (station: StationRef, local: string): PassageInput => ({ station, time: new Date(local) });
const amounts = (result: ChargeResult) => result.passages.map((p) => p.charged);
const reasons = (result: ChargeResult) => result.passages.map((p) => p.reason);
const minute = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

describe('Swedish public holidays', () => {
  test('Easter Sunday for any year', () => {
    expect(easterSunday(2024)).toBe('2024-03-31');
    expect(easterSunday(2025)).toBe('2025-04-20');
    expect(easterSunday(2026)).toBe('2026-04-05');
    expect(easterSunday(2027)).toBe('2027-03-28');
    expect(easterSunday(2038)).toBe('2038-04-25');
    expect(easterSunday(2285)).toBe('2285-03-22');
  });

  test('the named holidays of 2026', () => {
    expect(Object.fromEntries([...swedishHolidays(2026)].map(([date, name]) => [name, date]))).toEqual({
      newYearsDay: '2026-01-01',
      epiphany: '2026-01-06',
      goodFriday: '2026-04-03',
      easterSunday: '2026-04-05',
      easterMonday: '2026-04-06',
      mayDay: '2026-05-01',
      ascensionDay: '2026-05-14',
      nationalDay: '2026-06-06',
      whitSunday: '2026-05-24',
      midsummerDay: '2026-06-20',
      allSaintsDay: '2026-10-31',
      christmasDay: '2026-12-25',
      boxingDay: '2026-12-26',
    });
    // Midsommardagen and alla helgons dag fall on the Saturday of their week.
    expect(swedishHolidays(2025).get('2025-06-21')).toBe('midsummerDay');
    expect(swedishHolidays(2025).get('2025-11-01')).toBe('allSaintsDay');
    expect(swedishHolidays(2027).get('2027-11-06')).toBe('allSaintsDay');
  });
});

describe('days without tax', () => {
  test('weekends and public holidays, both cities', () => {
    for (const city of ['stockholm', 'goteborg'] as const) {
      expect(dayExemption(city, '2026-03-07')).toBe('weekend'); // Saturday
      expect(dayExemption(city, '2026-03-08')).toBe('weekend');
      expect(dayExemption(city, '2026-01-06')).toBe('holiday'); // Tuesday
      expect(dayExemption(city, '2026-04-03')).toBe('holiday'); // Good Friday
      expect(dayExemption(city, '2026-04-06')).toBe('holiday'); // Easter Monday
      expect(dayExemption(city, '2026-05-14')).toBe('holiday'); // Ascension Day
      expect(dayExemption(city, '2026-03-03')).toBeNull(); // an ordinary Tuesday
    }
  });

  test('days before a public holiday: Stockholm charges its five exceptions, Göteborg none', () => {
    const exceptions = ['2026-04-02', '2026-05-13', '2026-10-30', '2026-04-30', '2026-06-05'];
    for (const date of exceptions) {
      expect(dayExemption('stockholm', date)).toBeNull();
      expect(dayExemption('goteborg', date)).toBe('dayBeforeHoliday');
    }
    // Not exceptions: free in both (the day before epiphany, midsommarafton, julafton, nyårsafton).
    for (const date of ['2026-01-05', '2026-06-19', '2026-12-24', '2026-12-31', '2025-12-31']) {
      expect(dayExemption('stockholm', date)).toBe('dayBeforeHoliday');
      expect(dayExemption('goteborg', date)).toBe('dayBeforeHoliday');
    }
  });

  test('July: Göteborg all of it, Stockholm all but the first five weekdays', () => {
    // 1 July 2026 is a Wednesday: the first five weekdays are 1, 2, 3, 6 and 7 July.
    for (const date of ['2026-07-01', '2026-07-02', '2026-07-03', '2026-07-06', '2026-07-07']) {
      expect(dayExemption('stockholm', date)).toBeNull();
      expect(dayExemption('goteborg', date)).toBe('july');
    }
    expect(dayExemption('stockholm', '2026-07-08')).toBe('july');
    expect(dayExemption('stockholm', '2026-07-31')).toBe('july');
    expect(dayExemption('stockholm', '2026-07-04')).toBe('weekend');
    expect(dayExemption('stockholm', '2026-08-03')).toBeNull();
  });
});

describe('Stockholm tariff', () => {
  test('time bands at their edges, inner city, high and low season', () => {
    const high = '2026-03-03';
    const low = '2026-02-03';
    const table: Array<[string, number, number]> = [
      ['05:59', 0, 0],
      ['06:00', 15, 15],
      ['06:29', 15, 15],
      ['06:30', 30, 25],
      ['06:59', 30, 25],
      ['07:00', 45, 35],
      ['08:29', 45, 35],
      ['08:30', 30, 25],
      ['08:59', 30, 25],
      ['09:00', 20, 15],
      ['09:29', 20, 15],
      ['09:30', 11, 11],
      ['14:59', 11, 11],
      ['15:00', 20, 15],
      ['15:29', 20, 15],
      ['15:30', 30, 25],
      ['15:59', 30, 25],
      ['16:00', 45, 35],
      ['17:29', 45, 35],
      ['17:30', 30, 25],
      ['17:59', 30, 25],
      ['18:00', 20, 15],
      ['18:29', 20, 15],
      ['18:30', 0, 0],
    ];
    for (const [time, highAmount, lowAmount] of table) {
      expect([time, tariffAmount('stockholm', 'inner', high, minute(time))]).toEqual([time, highAmount]);
      expect([time, tariffAmount('stockholm', 'inner', low, minute(time))]).toEqual([time, lowAmount]);
    }
  });

  test('Essingeleden amounts', () => {
    expect(tariffAmount('stockholm', 'essingeleden', '2026-03-03', minute('06:45'))).toBe(27);
    expect(tariffAmount('stockholm', 'essingeleden', '2026-03-03', minute('07:00'))).toBe(40);
    expect(tariffAmount('stockholm', 'essingeleden', '2026-02-03', minute('07:00'))).toBe(30);
    expect(tariffAmount('stockholm', 'essingeleden', '2026-02-03', minute('17:45'))).toBe(22);
    expect(tariffAmount('stockholm', 'essingeleden', '2026-02-03', minute('12:00'))).toBe(11);
  });

  test('high season: 1 March to the day before midsommarafton, 15 August to 30 November', () => {
    expect(stockholmHighSeason('2026-02-28')).toBe(false);
    expect(stockholmHighSeason('2026-03-01')).toBe(true);
    // Midsommarafton 2026 is 19 June.
    expect(stockholmHighSeason('2026-06-18')).toBe(true);
    expect(stockholmHighSeason('2026-06-19')).toBe(false);
    expect(stockholmHighSeason('2026-08-14')).toBe(false);
    expect(stockholmHighSeason('2026-08-15')).toBe(true);
    expect(stockholmHighSeason('2026-11-30')).toBe(true);
    expect(stockholmHighSeason('2026-12-01')).toBe(false);
    expect(dailyMax('stockholm', '2026-03-03')).toBe(135);
    expect(dailyMax('stockholm', '2026-02-03')).toBe(105);
    expect(dailyMax('goteborg', '2026-03-03')).toBe(60);
  });

  test('the time of a passage is its hour and started minute, Swedish time (also in summer time)', () => {
    const result = computeCharges([
      at(danvikstull, '2026-03-03T06:29:59+01:00'),
      at(danvikstull, '2026-03-03T18:29:59+01:00'),
      at(danvikstull, '2026-05-05T06:59:30+02:00'),
    ]);
    expect(result.passages.map((p) => [p.localTime, p.tariff])).toEqual([
      ['06:29', 15],
      ['18:29', 20],
      ['06:59', 30],
    ]);
  });

  test('each passage is charged; the daily maximum caps the day (135 kr high season, 105 kr low season)', () => {
    const high = computeCharges([
      at(danvikstull, '2026-03-03T07:05+01:00'),
      at(skansbron, '2026-03-03T07:40+01:00'),
      at(danvikstull, '2026-03-03T16:10+01:00'),
      at(skansbron, '2026-03-03T17:10+01:00'),
    ]);
    expect(amounts(high)).toEqual([45, 45, 45, 0]);
    expect(reasons(high)).toEqual([null, null, null, 'dailyMax']);
    expect(high.days).toEqual([{ date: '2026-03-03', total: 135, cities: [{ city: 'stockholm', total: 135, cap: 135, capped: true }] }]);

    const low = computeCharges([
      at(danvikstull, '2026-02-03T06:40+01:00'),
      at(danvikstull, '2026-02-03T07:10+01:00'),
      at(danvikstull, '2026-02-03T08:00+01:00'),
      at(danvikstull, '2026-02-03T16:10+01:00'),
    ]);
    // 25 + 35 + 35 = 95; the fourth would make 130 and is cut to 10.
    expect(amounts(low)).toEqual([25, 35, 35, 10]);
    expect(low.passages[3]!.reason).toBe('dailyMax');
    expect(low.total).toBe(105);
  });

  test('no charge on weekends, holidays, the day before a holiday, July, and outside 06:00-18:29', () => {
    const result = computeCharges([
      at(danvikstull, '2026-03-07T08:00+01:00'), // Saturday
      at(danvikstull, '2026-05-01T08:00+02:00'), // 1 May
      at(danvikstull, '2026-04-30T08:00+02:00'), // day before 1 May: charged in Stockholm
      at(danvikstull, '2026-12-24T08:00+01:00'), // julafton
      at(danvikstull, '2026-07-07T08:00+02:00'), // fifth weekday of July: charged
      at(danvikstull, '2026-07-08T08:00+02:00'),
      at(danvikstull, '2026-03-03T18:30+01:00'),
      at(danvikstull, '2026-03-03T05:59+01:00'),
    ]);
    const byDate = Object.fromEntries(result.passages.map((p) => [`${p.date} ${p.localTime}`, [p.charged, p.reason]]));
    expect(byDate).toEqual({
      '2026-03-03 05:59': [0, 'outsideHours'],
      '2026-03-03 18:30': [0, 'outsideHours'],
      '2026-03-07 08:00': [0, 'weekend'],
      '2026-04-30 08:00': [45, null],
      '2026-05-01 08:00': [0, 'holiday'],
      '2026-07-07 08:00': [35, null],
      '2026-07-08 08:00': [0, 'july'],
      '2026-12-24 08:00': [0, 'dayBeforeHoliday'],
    });
    expect(result.total).toBe(80);
  });

  test('Essingeleden: one drive past several of its stations is one passage; the inner city is charged besides', () => {
    const result = computeCharges([
      at(storaEssingen, '2026-03-03T07:00+01:00'),
      at(fredhall, '2026-03-03T07:03+01:00'),
      at(kristineberg, '2026-03-03T07:05+01:00'),
      at(danvikstull, '2026-03-03T07:20+01:00'),
      // Back again later: a new passage.
      at(kristineberg, '2026-03-03T09:10+01:00'),
      at(storaEssingen, '2026-03-03T09:14+01:00'),
    ]);
    expect(amounts(result)).toEqual([40, 0, 0, 45, 20, 0]);
    expect(reasons(result)).toEqual([null, 'samePassage', 'samePassage', null, null, 'samePassage']);
    expect(result.total).toBe(105);
  });

  test('no tariff known before 2020', () => {
    const result = computeCharges([at(danvikstull, '2019-12-03T08:00+01:00')]);
    expect(reasons(result)).toEqual(['noTariff']);
    expect(result.total).toBe(0);
  });
});

describe('Göteborg tariff', () => {
  test('time bands at their edges', () => {
    const table: Array<[string, number]> = [
      ['05:59', 0],
      ['06:00', 9],
      ['06:29', 9],
      ['06:30', 16],
      ['06:59', 16],
      ['07:00', 22],
      ['07:59', 22],
      ['08:00', 16],
      ['08:29', 16],
      ['08:30', 9],
      ['14:59', 9],
      ['15:00', 16],
      ['15:29', 16],
      ['15:30', 22],
      ['16:59', 22],
      ['17:00', 16],
      ['17:59', 16],
      ['18:00', 9],
      ['18:29', 9],
      ['18:30', 0],
      ['23:59', 0],
    ];
    for (const [time, amount] of table) expect([time, tariffAmount('goteborg', 'goteborg', '2026-03-03', minute(time))]).toEqual([time, amount]);
  });

  test('single-charge rule: passages within 60 minutes are taxed once, at the highest amount', () => {
    const result = computeCharges([
      at(alvsborgsbron, '2026-03-03T06:20+01:00'), // 9
      at(tingstad, '2026-03-03T06:45+01:00'), // 16
      at(alvsborgsbron, '2026-03-03T07:15+01:00'), // 22, still within 60 minutes of 06:20
      at(tingstad, '2026-03-03T07:25+01:00'), // 65 minutes after 06:20: a new hour
      at(alvsborgsbron, '2026-03-03T08:25+01:00'), // exactly 60 minutes after 07:25: same hour
    ]);
    expect(result.passages.map((p) => p.tariff)).toEqual([9, 16, 22, 22, 16]);
    expect(amounts(result)).toEqual([0, 0, 22, 22, 0]);
    expect(reasons(result)).toEqual(['singleCharge', 'singleCharge', null, null, 'singleCharge']);
    expect(result.total).toBe(44);
  });

  test('daily maximum 60 kr', () => {
    const result = computeCharges([
      at(alvsborgsbron, '2026-03-03T07:00+01:00'), // 22
      at(alvsborgsbron, '2026-03-03T08:05+01:00'), // 16
      at(alvsborgsbron, '2026-03-03T15:30+01:00'), // 22
      at(alvsborgsbron, '2026-03-03T16:40+01:00'), // 22: over the maximum
    ]);
    expect(amounts(result)).toEqual([22, 16, 22, 0]);
    expect(result.passages[3]!.reason).toBe('dailyMax');
    expect(result.days[0]!.cities).toEqual([{ city: 'goteborg', total: 60, cap: 60, capped: true }]);
  });

  test('no tax in July, on the day before a holiday (including Skärtorsdagen) or on weekends', () => {
    const result = computeCharges([
      at(alvsborgsbron, '2026-07-01T07:00+02:00'),
      at(alvsborgsbron, '2026-04-02T07:00+02:00'),
      at(alvsborgsbron, '2026-03-08T07:00+01:00'),
    ]);
    expect(reasons(result)).toEqual(['weekend', 'dayBeforeHoliday', 'july']);
    expect(result.total).toBe(0);
  });

  test('Backa: stations 17-21 only for through-traffic (a control point within 30 minutes)', () => {
    const local = computeCharges([at(backadalen, '2026-03-03T07:00+01:00')]);
    expect(reasons(local)).toEqual(['backaLocal']);
    expect(local.total).toBe(0);

    const through = computeCharges([at(tuvevagen, '2026-03-03T06:40+01:00'), at(backadalen, '2026-03-03T07:05+01:00')]);
    expect(amounts(through)).toEqual([0, 22]);
    expect(reasons(through)).toEqual(['controlPoint', null]);

    const tooLate = computeCharges([at(backadalen, '2026-03-03T07:05+01:00'), at(tuvevagen, '2026-03-03T07:36+01:00')]);
    expect(reasons(tooLate)).toEqual(['backaLocal', 'controlPoint']);
  });

  test('Marieholmstunneln is charged from 16 December 2020', () => {
    const result = computeCharges([at(marieholmstunneln, '2020-12-15T07:00+01:00'), at(marieholmstunneln, '2020-12-16T07:00+01:00')]);
    expect(reasons(result)).toEqual(['notYetCharged', null]);
    expect(amounts(result)).toEqual([0, 22]);
  });
});

test('each city has its own daily maximum; days are Swedish days', () => {
  const result = computeCharges([
    at(danvikstull, '2026-03-03T07:00+01:00'),
    at(danvikstull, '2026-03-03T07:30+01:00'),
    at(danvikstull, '2026-03-03T08:00+01:00'),
    at(danvikstull, '2026-03-03T16:00+01:00'),
    at(alvsborgsbron, '2026-03-03T07:00+01:00'),
    at(alvsborgsbron, '2026-03-03T08:05+01:00'),
    at(alvsborgsbron, '2026-03-03T15:30+01:00'),
    at(alvsborgsbron, '2026-03-03T16:40+01:00'),
    // 06:10 Swedish time on the 4th is 05:10 UTC.
    at(danvikstull, '2026-03-04T05:10:00Z'),
  ]);
  expect(result.days.map((day) => [day.date, day.total])).toEqual([
    ['2026-03-03', 195],
    ['2026-03-04', 15],
  ]);
  expect(result.total).toBe(210);
});
