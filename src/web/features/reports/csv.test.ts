import { expect, test } from 'bun:test';
import type { CongestionReport } from '../../../modules/reports/model';
import { congestionCsv } from './csv';

test('the CSV has one row per passage, a total per day and for the period, quoted where needed', () => {
  const report: CongestionReport = {
    unitId: 1,
    unitName: 'Car',
    from: '2026-02-01',
    to: '2026-02-28',
    timeZone: 'Europe/Stockholm',
    days: [
      {
        date: '2026-02-24',
        total: 35,
        cities: [{ city: 'stockholm', total: 35, cap: 105, capped: false }],
        passages: [
          {
            time: '2026-02-24T06:05:37.000Z',
            localTime: '07:05',
            city: 'stockholm',
            zone: 'inner',
            station: 'Danvikstull',
            controlPoint: '271',
            tariff: 35,
            amount: 35,
            reason: null,
            tripId: 7,
            tripType: 'private',
            private: true,
          },
        ],
      },
    ],
    trips: [],
    total: 35,
    totals: { business: 0, private: 35, other: 0, none: 0 },
    passageCount: 1,
  };
  const csv = congestionCsv(report, {
    headers: ['Datum', 'Tid', 'Stad', 'Station', 'Resa', 'Taxa', 'Belopp', 'Anmärkning'],
    city: (city) => (city === 'stockholm' ? 'Stockholm' : 'Göteborg'),
    tripType: (type) => (type === 'private' ? 'Privat; egen' : 'Tjänst'),
    reason: (reason) => reason ?? '',
    dayTotal: 'Summa för dagen',
    periodTotal: 'Summa "perioden"',
  });
  expect(csv.startsWith('\uFEFF')).toBe(true);
  expect(csv.slice(1).split('\r\n')).toEqual([
    'Datum;Tid;Stad;Station;Resa;Taxa;Belopp;Anmärkning',
    '2026-02-24;07:05;Stockholm;Danvikstull;"Privat; egen";35;35;',
    '2026-02-24;;;;;;35;Summa för dagen',
    '2026-02-01 – 2026-02-28;;;;;;35;"Summa ""perioden"""',
    '',
  ]);
});
