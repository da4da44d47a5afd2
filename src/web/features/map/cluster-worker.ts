import { CLUSTER_MAX_ZOOM, CLUSTER_MIN_POINTS, CLUSTER_RADIUS_PX } from '../../components/map/clustering';
import { superclusterSource } from './supercluster-source';

/**
 * The clustering worker's code, apart from the rest of the map so that the app's entry can start it as soon as the
 * page opens on the map (see `prefetchLiveMap`): a worker takes a few hundred milliseconds to boot on a busy machine.
 */

const OPTIONS = { radius: CLUSTER_RADIUS_PX, maxZoom: CLUSTER_MAX_ZOOM, minPoints: CLUSTER_MIN_POINTS };
/** Rounds of made-up units the worker clusters at start, and units per round (see the worker's warm-up). */
const WARM_UP_ROUNDS = 6;
const WARM_UP_POINTS = 500;

/**
 * The worker: supercluster (its UMD build, loaded as text into this chunk) answering build, view and
 * expansion requests. Points arrive as one transferred Float64Array of [id, lon, lat] triples.
 */
const WORKER_SOURCE = `${superclusterSource}
let index = null;
/** A fleet has been clustered: no more warm-up rounds. */
let clustered = false;
let generation = 0;
let key = null;
/** The index of the start-up list the page handed over (its 'prebuild' message), built before the page asks: { points, index }. */
let prebuilt = null;
const build = (a) => {
  const points = new Array(a.length / 3);
  for (let i = 0, j = 0; i < a.length; i += 3, j++) {
    points[j] = { type: 'Feature', properties: { id: a[i] }, geometry: { type: 'Point', coordinates: [a[i + 1], a[i + 2]] } };
  }
  return new Supercluster(${JSON.stringify(OPTIONS)}).load(points);
};
const same = (a, b) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};
/** [id, lon, lat] of every unit with a position, in list order: what the page sends to build from the same list. */
const pointsOf = (list) => {
  const id = list.fields.indexOf('id');
  const lat = list.fields.indexOf('lat');
  const lon = list.fields.indexOf('lon');
  const out = new Float64Array(list.units.length * 3);
  let n = 0;
  for (const row of list.units) {
    if (row[lat] === null || row[lon] === null) continue;
    out[n++] = row[id];
    out[n++] = row[lon];
    out[n++] = row[lat];
  }
  return out.slice(0, n);
};
self.onmessage = (event) => {
  const m = event.data;
  if (m.type === 'prebuild') {
    // The unit list's body as the page received it at start-up: clustered here while the page parses its own copy,
    // so that the page's first build (of the same units) is ready at once.
    clustered = true;
    try {
      const points = pointsOf(JSON.parse(new TextDecoder().decode(m.body)).data);
      prebuilt = { points, index: build(points) };
    } catch {
      // not a list: the page reports it, and builds from what it has
    }
  } else if (m.type === 'build') {
    const started = performance.timeOrigin + performance.now();
    const a = m.points;
    if (a.length > 0) clustered = true;
    index = prebuilt && same(prebuilt.points, a) ? prebuilt.index : build(a);
    if (a.length > 0) prebuilt = null;
    generation = m.generation;
    key = m.key;
    const ended = performance.timeOrigin + performance.now();
    self.postMessage({ type: 'built', generation, waited: started - m.sentAt, took: ended - started, sentAt: ended });
  } else if (m.type === 'view') {
    const clusters = [];
    const ids = [];
    if (index) {
      for (const f of index.getClusters(m.bbox, m.zoom)) {
        if (f.properties.cluster) clusters.push([f.properties.cluster_id, f.geometry.coordinates[0], f.geometry.coordinates[1], f.properties.point_count]);
        else ids.push(f.properties.id);
      }
    }
    self.postMessage({ type: 'view', seq: m.seq, generation, key, clusters, ids });
  } else if (m.type === 'expansion') {
    let zoom = ${CLUSTER_MAX_ZOOM + 1};
    try { if (index) zoom = index.getClusterExpansionZoom(m.id); } catch {}
    self.postMessage({ type: 'expansion', seq: m.seq, zoom });
  }
};
// Warm-up while the page still waits for its list: a first build runs supercluster's code unoptimised, about twice as
// slow as later ones; clustering made-up fleets first lets V8 optimise it before the real fleet arrives. In small
// rounds, each a task of its own, so that the real build never waits behind more than one of them.
{
  let seed = 1;
  const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  let rounds = ${WARM_UP_ROUNDS};
  const round = () => {
    if (clustered || rounds-- <= 0) return;
    const points = new Float64Array(${WARM_UP_POINTS * 3});
    for (let i = 0; i < points.length; i += 3) {
      points[i] = i / 3;
      points[i + 1] = 5 + next() * 25;
      points[i + 2] = 55 + next() * 14;
    }
    build(points).getClusters([10, 58, 20, 62], 8);
    setTimeout(round, 0);
  };
  setTimeout(round, 0);
}`;

/** Starts a clustering worker (see `ClusterIndex`); `url` is revoked when it is disposed of. */
export function startClusterWorker(): { worker: Worker; url: string } {
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }));
  return { worker: new Worker(url), url };
}
