/** Calendar days in a time zone as UTC instants (DST-aware), for date ranges given as days. */

export function isTimeZone(value: string | null | undefined): value is string {
  if (!value || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** The zone's wall-clock time at an instant, as if it were UTC (epoch ms). */
function wallClock(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** Offset of the zone from UTC at an instant, in ms (Stockholm in winter: +3 600 000). */
export function zoneOffsetMs(instant: number, timeZone: string): number {
  return wallClock(Math.floor(instant / 1000) * 1000, timeZone) - Math.floor(instant / 1000) * 1000;
}

/** The instant a calendar day (YYYY-MM-DD) begins in the zone. */
export function startOfDay(date: string, timeZone: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(year, month - 1, day);
  let instant = wall - zoneOffsetMs(wall, timeZone);
  // Across a DST change the offset at the guess may differ from the offset at the answer.
  instant = wall - zoneOffsetMs(instant, timeZone);
  return new Date(instant);
}

/** The calendar day (YYYY-MM-DD) of an instant in the zone. */
export function dayOf(instant: Date, timeZone: string): string {
  return new Date(wallClock(instant.getTime(), timeZone)).toISOString().slice(0, 10);
}

/** Day of the week of a calendar day (`YYYY-MM-DD`): 0 Sunday … 6 Saturday. */
export function weekday(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

/** Adds months, then days, to a calendar day; a day past the month's end rolls over (29 Feb 2024 + 12 months = 1 Mar 2025). */
export function addToDay(date: string, amount: { days?: number; months?: number }): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1 + (amount.months ?? 0), day + (amount.days ?? 0))).toISOString().slice(0, 10);
}
