import type { Server } from 'bun';
import type { GatewayContext } from '../context';
import { decodeOsmand, OsmandError } from '../osmand';

const MAX_BODY_BYTES = 64 * 1024;

/**
 * OsmAnd and Traccar Client over HTTP: any path, GET or POST, query string, form or JSON body.
 * 200 only after the position is stored; 400 for an unknown id in the query format, 404 in JSON (as traccar).
 */
export function startOsmandHttp(context: GatewayContext, port: number, hostname = '0.0.0.0'): Server<undefined> {
  const { metrics } = context;
  return Bun.serve({
    hostname,
    port,
    maxRequestBodySize: MAX_BODY_BYTES,
    async fetch(request, server) {
      const receivedAt = new Date();
      metrics.framesReceived += 1;
      const body = request.method === 'GET' ? '' : await request.text();
      const contentType = request.headers.get('content-type') ?? '';
      let decoded: ReturnType<typeof decodeOsmand>;
      try {
        decoded = decodeOsmand({ method: request.method, url: request.url, contentType, body });
      } catch (error) {
        metrics.malformed += 1;
        const status = error instanceof OsmandError ? error.status : 400;
        return new Response(error instanceof Error ? error.message : 'Bad request', { status });
      }
      const device = await context.devices.find(decoded.deviceId);
      if (!device) {
        metrics.unknownDevices += 1;
        return new Response('Unknown device', { status: contentType.includes('json') ? 404 : 400 });
      }
      let records = decoded.records;
      if (records.some((r) => Number.isNaN(r.latitude) || Number.isNaN(r.longitude))) {
        // A report without coordinates reuses the last stored fix.
        const [last] = await context.database.query<{ lat: number; lon: number }>(
          'SELECT ST_Y(geom) AS lat, ST_X(geom) AS lon FROM unit_latest_fix WHERE unit_id = $1',
          [device.unitId],
        );
        if (!last) return new Response('No position', { status: 400 });
        records = records.map((r) =>
          Number.isNaN(r.latitude) || Number.isNaN(r.longitude) ? { ...r, latitude: last.lat, longitude: last.lon, valid: false } : r,
        );
      }
      try {
        await context.ingest.submit({
          unitId: device.unitId,
          accountId: device.accountId,
          protocol: 'osmand',
          deviceId: decoded.deviceId,
          records,
          rawFrame: new TextEncoder().encode(`${request.method} ${request.url}\n${body}`),
          remote: server.requestIP(request)?.address ?? '',
          receivedAt,
        });
      } catch {
        metrics.ingestFailures += 1;
        return new Response('Not stored', { status: 503 });
      }
      metrics.recordsStored += records.length;
      metrics.recordLatency(Date.now() - receivedAt.getTime());
      return new Response('OK');
    },
  });
}
