import Supercluster, { type ClusterProperties, type PointFeature } from 'supercluster';
import type { TrackedUnit } from './store';

/** Above this zoom every unit is drawn on its own. */
export const CLUSTER_MAX_ZOOM = 15;
/** A busy fleet re-clusters at most this often; markers drawn on their own move at once in between. */
export const RECLUSTER_MS = 2000;

export interface ClusterMarker {
  kind: 'cluster';
  id: number;
  position: [number, number];
  count: number;
}

export interface ClusterView {
  clusters: ClusterMarker[];
  /** Units drawn on their own, with their newest state. */
  units: TrackedUnit[];
}

type PointProps = { id: number };

/**
 * Clusters of units (supercluster). Building the index for 20,000 units takes tens of milliseconds, so
 * it is rebuilt when the filter changes and otherwise at most every `RECLUSTER_MS` while positions
 * change; between builds a unit drawn on its own is drawn at its newest position straight from the store.
 */
export class ClusterIndex {
  private index: Supercluster<PointProps> | null = null;
  private builtAt = 0;
  private builtKey = '';
  private stale = true;

  markStale(): void {
    this.stale = true;
  }

  /** Whether `view` would rebuild now. */
  needsBuild(filterKey: string, now: number): boolean {
    if (!this.index || filterKey !== this.builtKey) return true;
    return this.stale && now - this.builtAt >= RECLUSTER_MS;
  }

  build(units: readonly TrackedUnit[], include: (unit: TrackedUnit) => boolean, filterKey: string, now: number): void {
    const points: Array<PointFeature<PointProps>> = [];
    for (const unit of units) {
      if (unit.lat === null || unit.lon === null || !include(unit)) continue;
      points.push({ type: 'Feature', properties: { id: unit.id }, geometry: { type: 'Point', coordinates: [unit.lon, unit.lat] } });
    }
    const index = new Supercluster<PointProps>({ radius: 56, maxZoom: CLUSTER_MAX_ZOOM, minPoints: 3 });
    index.load(points);
    this.index = index;
    this.builtAt = now;
    this.builtKey = filterKey;
    this.stale = false;
  }

  /** Clusters and single units within the bounds at a zoom. */
  view(bbox: [number, number, number, number], zoom: number, unitOf: (id: number) => TrackedUnit | undefined, include: (unit: TrackedUnit) => boolean): ClusterView {
    const clusters: ClusterMarker[] = [];
    const units: TrackedUnit[] = [];
    if (!this.index) return { clusters, units };
    for (const feature of this.index.getClusters(bbox, Math.floor(zoom))) {
      const properties = feature.properties as Partial<ClusterProperties> & Partial<PointProps>;
      if (properties.cluster) {
        const [lon, lat] = feature.geometry.coordinates as [number, number];
        clusters.push({ kind: 'cluster', id: properties.cluster_id!, position: [lon, lat], count: properties.point_count! });
      } else if (properties.id !== undefined) {
        const unit = unitOf(properties.id);
        if (unit && unit.lat !== null && unit.lon !== null && include(unit)) units.push(unit);
      }
    }
    return { clusters, units };
  }

  expansionZoom(clusterId: number): number {
    try {
      return this.index ? this.index.getClusterExpansionZoom(clusterId) : CLUSTER_MAX_ZOOM + 1;
    } catch {
      return CLUSTER_MAX_ZOOM + 1;
    }
  }

  /** Ids of the units in a cluster (up to `limit`). */
  leaves(clusterId: number, limit = 50): number[] {
    if (!this.index) return [];
    try {
      return this.index.getLeaves(clusterId, limit).map((leaf) => leaf.properties.id);
    } catch {
      return [];
    }
  }
}
