import { startClusterWorker } from './cluster-worker';
import { takeClusterWorker } from './prefetch';
import type { TrackedUnit } from './store';

export { CLUSTER_MAX_ZOOM } from '../../components/map/clustering';
/** A busy fleet re-clusters at most this often; markers drawn on their own move at once in between. */
export const RECLUSTER_MS = 2000;

/** [west, south, east, north] in degrees. */
export type Bounds = [number, number, number, number];
/** Each side of a view question reaches this share of the view's size beyond what is visible. */
const VIEW_MARGIN = 0.25;

export const clamp = ([west, south, east, north]: Bounds): Bounds => [Math.max(-180, west), Math.max(-85, south), Math.min(180, east), Math.min(85, north)];

/** The bounds a view question covers: the visible ones with the margin. */
export function padded([west, south, east, north]: Bounds): Bounds {
  const dx = (east - west) * VIEW_MARGIN;
  const dy = (north - south) * VIEW_MARGIN;
  return clamp([west - dx, south - dy, east + dx, north + dy]);
}

export const contains = (outer: Bounds, inner: Bounds) => inner[0] >= outer[0] && inner[1] >= outer[1] && inner[2] <= outer[2] && inner[3] <= outer[3];

export interface ClusterMarker {
  kind: 'cluster';
  id: number;
  position: [number, number];
  count: number;
}

interface BuiltReply {
  type: 'built';
  generation: number;
  waited: number;
  took: number;
  sentAt: number;
}

interface ViewReply {
  type: 'view';
  seq: number;
  generation: number;
  /** The list version and filter key of the units the answering index was built from. */
  key: string | null;
  clusters: Array<[number, number, number, number]>;
  ids: number[];
}

/**
 * Clusters of units, computed off the main thread. Building the index for 20,000 units takes tens of
 * milliseconds, which would stall frames; so the index lives in a worker, is rebuilt when the filter
 * changes and otherwise at most every `RECLUSTER_MS` while positions change, and answers each view
 * (bounds and zoom) with cluster markers and the ids of units drawn on their own. Those are drawn at
 * their newest position straight from the store, so a moving marker never waits for a rebuild.
 */
export class ClusterIndex {
  private readonly worker: Worker;
  private readonly workerUrl: string;
  private generation = 0;
  private building = false;
  private builtAt = 0;
  private builtKey: string | null = null;
  private stale = true;
  private seq = 0;
  /** The padded bounds and zoom of the last view asked for; null asks again. */
  private covered: { bbox: Bounds; zoom: number } | null = null;
  private view: ViewReply | null = null;
  private readonly expansions = new Map<number, (zoom: number) => void>();
  /**
   * When the newest index was heard of (performance.now()), and how long its build waited in the worker, took and took
   * to be heard of (ms): the benchmark's account of a first draw.
   */
  lastBuild = { at: 0, waited: 0, took: 0, delivered: 0 };
  /** A new view (or a new index) arrived: the map that asks sets this to draw again. */
  onView: () => void = () => {};

  /**
   * Made by the page as soon as it mounts, so that the index of a large fleet is built while the map's own code
   * still loads; the map asks it for views once it exists.
   */
  constructor() {
    // The worker started at page start when the app opened on the map (it then has booted and warmed up by now).
    ({ worker: this.worker, url: this.workerUrl } = takeClusterWorker() ?? startClusterWorker());
    this.worker.onmessage = (event: MessageEvent) => {
      const message = event.data as ViewReply | BuiltReply | { type: 'expansion'; seq: number; zoom: number };
      if (message.type === 'built') {
        this.building = false;
        const at = performance.now();
        this.lastBuild = { at, waited: message.waited, took: message.took, delivered: performance.timeOrigin + at - message.sentAt };
        this.onView();
      } else if (message.type === 'view') {
        // While the map pans every frame, answers arrive for views already left: take any newer one.
        if (message.seq > (this.view?.seq ?? 0)) {
          this.view = message;
          this.onView();
        }
      } else if (message.type === 'expansion') {
        this.expansions.get(message.seq)?.(message.zoom);
        this.expansions.delete(message.seq);
      }
    };
  }

  dispose(): void {
    this.worker.terminate();
    URL.revokeObjectURL(this.workerUrl);
  }

  markStale(): void {
    this.stale = true;
  }

  /**
   * Starts a rebuild when the filter or the list changed (`filterKey`, the store's `listVersion`), or positions
   * changed and the interval is over.
   */
  maybeBuild(units: readonly TrackedUnit[], include: (unit: TrackedUnit) => boolean, filterKey: string, listVersion: number, now: number): void {
    if (this.building) return;
    const key = `${listVersion}|${filterKey}`;
    const due = this.builtKey !== key || (this.stale && now - this.builtAt >= RECLUSTER_MS);
    if (!due) return;
    const points = new Float64Array(units.length * 3);
    let n = 0;
    for (const unit of units) {
      if (unit.lat === null || unit.lon === null || !include(unit)) continue;
      points[n++] = unit.id;
      points[n++] = unit.lon;
      points[n++] = unit.lat;
    }
    const packed = points.slice(0, n);
    this.generation += 1;
    this.building = true;
    this.builtAt = now;
    this.builtKey = key;
    this.stale = false;
    // The next view question goes out at once, queued behind the build: the worker answers it from the new index
    // as soon as that is built, without waiting for the page to hear of the build and ask.
    this.covered = null;
    this.worker.postMessage({ type: 'build', generation: this.generation, key, points: packed, sentAt: performance.timeOrigin + performance.now() }, [packed.buffer]);
  }

  /** Identifies the view answer `current` reads (changes when a new one arrives). */
  get viewSeq(): number {
    return this.view?.seq ?? 0;
  }

  /** Whether the latest answer comes from an index of this list and filter (not of an earlier one). */
  answers(filterKey: string, listVersion: number): boolean {
    return this.view?.key === `${listVersion}|${filterKey}`;
  }

  /** Whether a rebuild will be due later (positions changed since the last one). */
  get pending(): boolean {
    return this.stale || this.building;
  }

  /**
   * Asks for the clusters of the visible bounds at this zoom (answered asynchronously, see `onView`). The
   * question covers a margin around the view, so a pan within it needs no new answer: the layers stay as they
   * are and only the camera moves, instead of every layer's data being rebuilt each frame of a drag.
   */
  request(visible: Bounds, zoom: number): void {
    const z = Math.floor(zoom);
    if (this.covered && this.covered.zoom === z && contains(this.covered.bbox, clamp(visible))) return;
    const bbox = padded(visible);
    this.covered = { bbox, zoom: z };
    this.seq += 1;
    this.worker.postMessage({ type: 'view', seq: this.seq, bbox, zoom: z });
  }

  /** The latest answer's clusters. */
  clusterMarkers(): ClusterMarker[] {
    const clusters: ClusterMarker[] = [];
    for (const [id, lon, lat, count] of this.view?.clusters ?? []) clusters.push({ kind: 'cluster', id, position: [lon, lat], count });
    return clusters;
  }

  /** The latest answer's units drawn on their own, with their newest state. */
  unitsOnTheirOwn(unitOf: (id: number) => TrackedUnit | undefined, include: (unit: TrackedUnit) => boolean): TrackedUnit[] {
    const units: TrackedUnit[] = [];
    for (const id of this.view?.ids ?? []) {
      const unit = unitOf(id);
      if (unit && unit.lat !== null && unit.lon !== null && include(unit)) units.push(unit);
    }
    return units;
  }

  expansionZoom(clusterId: number): Promise<number> {
    this.seq += 1;
    const seq = this.seq;
    this.covered = null; // the view request above was superseded
    return new Promise((resolve) => {
      this.expansions.set(seq, resolve);
      this.worker.postMessage({ type: 'expansion', seq, id: clusterId });
    });
  }
}
