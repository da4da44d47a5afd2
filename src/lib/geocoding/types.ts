/** Reverse geocoding: a point to a short human-readable address, through a pluggable provider. */
export interface GeocodeResult {
  /** What a trip log shows: "Storgatan 1, Solna" from an address provider, "Solna, SE" offline. */
  label: string;
  locality?: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string;
}

export interface GeocodingProvider {
  /** Names the provider and its data in the cache key, so a change of provider never serves old answers. */
  readonly id: string;
  /** The address at a point; null when the provider knows none there. Throws when the provider cannot be reached. */
  reverse(latitude: number, longitude: number): Promise<GeocodeResult | null>;
  /** Forward geocoding: places matching a typed address, best first. Absent when the provider cannot search. Throws when unreachable. */
  search?(query: string, limit: number): Promise<GeocodeCandidate[]>;
}

/** A forward-geocoding answer: a label and where it is (WGS 84). */
export interface GeocodeCandidate {
  label: string;
  latitude: number;
  longitude: number;
}
