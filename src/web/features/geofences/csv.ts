import type { GeofenceEventView } from '../../../modules/geofences/model';

/** One field, quoted when it holds the separator, a quote or a line break. */
function field(value: string | number): string {
  const text = String(value);
  return /[;"\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The zone event log as CSV (semicolons and a byte-order mark, so that spreadsheet programs with Swedish and
 * Norwegian settings open it as is), rows in the log's order.
 */
export function geofenceEventsCsv(
  events: readonly GeofenceEventView[],
  texts: { headers: string[]; time: (iso: string) => string; transition: (event: GeofenceEventView) => string },
): string {
  const rows: Array<Array<string | number>> = [texts.headers];
  for (const event of events) {
    rows.push([texts.time(event.at), event.geofenceName, event.unitName, texts.transition(event), event.latitude.toFixed(6), event.longitude.toFixed(6)]);
  }
  return `\uFEFF${rows.map((row) => row.map(field).join(';')).join('\r\n')}\r\n`;
}
