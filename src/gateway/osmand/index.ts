export { decodeOsmand, OsmandError, type OsmandDecoded, type OsmandRequest, parseTimestamp } from './decoder';
export { encodeOsmandQuery, type OsmandQueryValues } from './encoder';
