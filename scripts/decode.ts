/**
 * `bun run decode <teltonika|gt06|osmand> <payload> [imei]`: prints each decoded record as one JSON line.
 * Hex for the binary protocols (spaces allowed), the query string or JSON body for OsmAnd.
 */
import { DECODE_PROTOCOLS, type DecodeProtocol, decodePayload, PayloadError } from '../src/gateway/decode';

const [protocol, payload, imei] = process.argv.slice(2);
if (!protocol || !DECODE_PROTOCOLS.includes(protocol as DecodeProtocol) || payload === undefined) {
  console.error(`usage: bun run decode <${DECODE_PROTOCOLS.join('|')}> <payload> [imei]`);
  process.exit(2);
}
try {
  for (const line of decodePayload(protocol as DecodeProtocol, payload, imei)) console.log(JSON.stringify(line));
} catch (error) {
  if (!(error instanceof PayloadError)) throw error;
  console.error(`malformed ${protocol} payload: ${error.message}`);
  process.exit(1);
}
