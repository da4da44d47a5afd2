/**
 * `bun run decode <teltonika|gt06|osmand> <payload> [imei] [--model <model>]`: prints each decoded record as one JSON
 * line. Hex for the binary protocols (spaces allowed), the query string or JSON body for OsmAnd. Exits 1 on a malformed
 * payload, 2 on bad arguments, 3 when the decoder itself failed.
 */
import { runDecodeCommand } from '../src/gateway/decode';

process.exitCode = runDecodeCommand(process.argv.slice(2), console.log, console.error);
