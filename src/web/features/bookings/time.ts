import { formatLocalDateTime, type LocalDateTime, naiveMs } from '../../../modules/bookings/model';

/** The current wall-clock time in a time zone as `YYYY-MM-DDTHH:mm:00` by this device's clock. */
export function nowInZone(timeZone: string, now: Date = new Date()): LocalDateTime {
  const options: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-CA', { ...options, timeZone }).formatToParts(now);
  } catch {
    parts = new Intl.DateTimeFormat('en-CA', options).formatToParts(now);
  }
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((candidate) => candidate.type === type)?.value ?? '00';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:00`;
}

/** How far the server's clock is ahead of this device's, learnt from each schedule answer's `Now`. */
let serverOffsetMs = 0;

/** Notes the server's "now" (the account's wall-clock time) so the form's §5 corrections follow the server's clock. */
export function syncAccountClock(answer: { Now?: LocalDateTime; TimeZone?: string } | undefined): void {
  if (!answer?.Now || !answer.TimeZone) return;
  const server = naiveMs(answer.Now);
  const local = naiveMs(nowInZone(answer.TimeZone));
  if (!Number.isNaN(server) && !Number.isNaN(local)) serverOffsetMs = Math.round((server - local) / 60_000) * 60_000;
}

/** The account's current wall-clock time, by the server's clock (`YYYY-MM-DDTHH:mm:00`). */
export function accountNow(timeZone: string, now: Date = new Date()): LocalDateTime {
  const local = nowInZone(timeZone, now);
  return serverOffsetMs === 0 ? local : formatLocalDateTime(naiveMs(local) + serverOffsetMs).slice(0, 16).concat(':00');
}
