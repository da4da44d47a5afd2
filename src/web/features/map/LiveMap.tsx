import { Suspense, startTransition, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { UnitStatus } from '../../../modules/tracking/model';
import { useBrand } from '../../brands/BrandProvider';
import { Banner } from '../../components/Form';
import { errorText, isApiError } from '../../lib/api';
import { useSecurityUnits } from '../../lib/alarms';
import type { GeofenceView } from '../../../modules/geofences/model';
import { useGeofenceEvents, useGeofences } from '../../components/geofences/api';
import { GeofenceToggle, HistoryZoneEvents, readZonesShown, writeZonesShown, ZoneUnitsPanel } from '../../components/geofences/GeofenceLivePanel';
import { AddressBook, useAddressBook } from './addresses';
import { ClusterIndex } from './clusters';
import { fitOf } from './fit';
import { formatters, isoDay } from './format';
import { HistoryBar } from './HistoryBar';
import { lazyPreloaded } from './lazy-preloaded';
import { type HistoryView, loadHistory, positionAt } from './history';
import type { MapHandle, ReplayMarker } from './MapCanvas';
import mapCss from './map.css' with { type: 'text' };
import { FleetStore, type TrackedUnit } from './store';
import { EMPTY_FILTER, type FilterChoices, type UnitFilter, UnitPanel, unitMatcher } from './UnitPanel';
import { UnitPopup } from './UnitPopup';

const MapCanvas = lazyPreloaded('MapCanvas', () => import('./MapCanvas'));

/** The zones are read once the fleet is drawn, or at the latest this long after the page opened. */
const ZONES_LATEST_MS = 5000;

/** The side panel and popup re-read the store at most this often (the map itself draws every frame). */
const PANEL_REFRESH_MS = 1000;

let mapCssInjected = false;
function injectCss() {
  if (mapCssInjected) return;
  const style = document.createElement('style');
  style.dataset.source = 'live-map';
  style.textContent = mapCss;
  document.head.appendChild(style);
  mapCssInjected = true;
}

/** A probe for tests and the benchmark: the live store and the map, as the page holds them. */
export interface FleetMapProbe {
  store: FleetStore;
  map: MapHandle | null;
  /** Whether the opening view (the fleet in view, or a linked unit) has been made. */
  readonly opened: boolean;
  select(id: number | null): void;
}
declare global {
  interface Window {
    __fleetMap?: FleetMapProbe;
  }
}

/** Changes whenever the filter does (the cluster index also follows the store's list version). */
function filterKeyOf(filter: UnitFilter): string {
  return `${filter.search}|${[...filter.statuses].sort().join(',')}|${filter.vehicleType}|${filter.department}|${filter.tag}`;
}

/** Re-renders at most every `PANEL_REFRESH_MS` while the store changes. */
function useThrottledVersion(store: FleetStore): number {
  const [version, setVersion] = useState(store.version);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let last = 0;
    const unsubscribe = store.subscribe(() => {
      if (timer) return;
      const wait = Math.max(0, PANEL_REFRESH_MS - (performance.now() - last));
      timer = setTimeout(() => {
        timer = null;
        last = performance.now();
        // Not urgent: React renders the panel in slices, so that the map's frames and the cluster worker's answers
        // are not held up behind it (after the list arrives, that render walks every unit).
        startTransition(() => setVersion(store.version));
      }, wait);
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [store]);
  return version;
}

/** The clock of relative times ("3 min ago"), ticking every 15 s. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

interface HistoryState {
  unitId: number;
  date: string;
  view: HistoryView | null;
  loading: boolean;
  error: unknown;
  time: number | null;
  playing: boolean;
  speed: number;
}

/** The live map page's island: unit panel, map, popup and route history. */
export default function LiveMap() {
  const { t, i18n } = useTranslation();
  const brand = useBrand();
  const [store] = useState(() => new FleetStore());
  const [addresses] = useState(() => new AddressBook());
  const [clusters] = useState(() => new ClusterIndex());
  const version = useThrottledVersion(store);
  useAddressBook(addresses);
  const now = useNow();
  const [filter, setFilter] = useState<UnitFilter>(EMPTY_FILTER);
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [focus, setFocus] = useState<{ id: number; seq: number } | null>(null);
  const [mapFailure, setMapFailure] = useState<string | null>(null);
  const [history, setHistory] = useState<HistoryState | null>(null);
  const handleRef = useRef<MapHandle | null>(null);
  const [mapReady, setMapReady] = useState(false);
  /** The opening view is made once (see below). */
  const opened = useRef(false);
  // The geofence layer: the zones (read again every minute, for who is inside), the one clicked. They are read once the
  // fleet is on screen: not beside the unit list and the map's code, which the load waits for.
  const [zonesShown, setZonesShown] = useState(readZonesShown);
  const [pickedZoneId, setPickedZoneId] = useState<number | null>(null);
  const [fleetDrawn, setFleetDrawn] = useState(false);
  const onFleetDrawn = useCallback(() => setFleetDrawn(true), []);
  useEffect(() => {
    const timer = setTimeout(onFleetDrawn, ZONES_LATEST_MS);
    return () => clearTimeout(timer);
  }, [onFleetDrawn]);
  const zones = useGeofences('', { enabled: zonesShown && fleetDrawn, refetchInterval: 60_000 });
  const pickedZone = zonesShown ? zones.data?.find((zone) => zone.id === pickedZoneId) : undefined;
  const pickZone = useCallback((zone: GeofenceView) => setPickedZoneId(zone.id), []);
  injectCss();

  useEffect(() => {
    void store.start();
    return () => store.stop();
  }, [store]);

  // Units with an open security alarm get a red halo (the summary at first, then the socket's alarms messages).
  const securityUnits = useSecurityUnits();
  useEffect(() => store.setSecurity(securityUnits), [store, securityUnits]);

  useEffect(() => {
    window.__fleetMap = {
      store,
      get map() {
        return handleRef.current;
      },
      get opened() {
        return opened.current;
      },
      select: (id) => setSelectedId(id),
    };
    return () => {
      delete window.__fleetMap;
    };
  }, [store]);

  const f = useMemo(() => formatters(i18n.language), [i18n.language]);
  const include = useMemo(() => unitMatcher(filter), [filter]);
  const filterKey = filterKeyOf(filter);
  const filterRef = useRef(filter);
  filterRef.current = filter;

  useEffect(() => () => clusters.dispose(), [clusters]);
  // A large fleet's clusters are built as soon as the list is in, while the map's code may still be loading; the
  // map finds them built (same filter key) instead of starting only once it exists.
  useEffect(() => {
    const unsubscribe = store.subscribe(() => {
      if (store.loadState !== 'ready') return;
      unsubscribe();
      const filter = filterRef.current;
      store.probe.marks.clustersAsked = performance.now();
      clusters.maybeBuild(store.units, unitMatcher(filter), filterKeyOf(filter), store.listVersion, performance.now());
    });
    return unsubscribe;
  }, [store, clusters]);

  // Derived lists (re-read on the throttled version): filtered units, counts per status, vehicle types present.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` stands for the store's content.
  const { shown, counts, choices } = useMemo(() => {
    const counts: Record<UnitStatus, number> = { moving: 0, parked: 0, offline: 0 };
    const types = new Set<string>();
    const departments = new Map<string, string>();
    const tags = new Set<string>();
    const shown: TrackedUnit[] = [];
    for (const unit of store.units) {
      counts[unit.status] += 1;
      types.add(unit.vehicleType);
      if (unit.departmentId !== null && unit.department) departments.set(String(unit.departmentId), unit.department);
      for (const tag of unit.tags ?? []) tags.add(tag);
      if (include(unit)) shown.push(unit);
    }
    const byName = (a: string, b: string) => a.localeCompare(b, i18n.language);
    const choices: FilterChoices = {
      vehicleTypes: [...types].sort(),
      departments: [...departments].map(([id, name]) => ({ id, name })).sort((a, b) => byName(a.name, b.name)),
      tags: [...tags].sort(byName),
    };
    return { shown, counts, choices };
  }, [version, include, store, i18n.language]);

  const pick = useCallback((id: number) => {
    setSelectedId(id);
    setFocus((previous) => ({ id, seq: (previous?.seq ?? 0) + 1 }));
  }, []);

  // `?unit=` (an alarm's link, from a push notification or a message): that unit, chosen and in view, once loaded.
  const [searchParams] = useSearchParams();
  const linkedUnit = Number(searchParams.get('unit'));
  const loaded = store.loadState === 'ready';
  useEffect(() => {
    if (loaded && Number.isInteger(linkedUnit) && linkedUnit > 0 && store.get(linkedUnit)) pick(linkedUnit);
  }, [loaded, linkedUnit, store, pick]);

  // The map opens with the shown fleet in view (the default place only when no unit has a position); "show all"
  // brings it back. A linked unit (`?unit=`) is flown to instead.
  const shownRef = useRef<TrackedUnit[]>([]);
  shownRef.current = shown;
  /** Fits the map to the shown units (as they stand now); false when none of them has a position yet. */
  const showAll = useCallback(
    (animate: boolean): boolean => {
      const map = handleRef.current?.map;
      if (!map) return false;
      const container = map.getContainer();
      // Not laid out yet: nothing can be fitted (MapLibre would keep its place); tried again on the next change.
      if (container.clientWidth === 0 || container.clientHeight === 0) return false;
      // The map learns its element's size from a resize observer, a frame later: fitted to its size now.
      const canvas = map.getCanvas();
      if (canvas.clientWidth !== container.clientWidth || canvas.clientHeight !== container.clientHeight) map.resize();
      const now = shownRef.current.map((unit) => store.get(unit.id) ?? unit);
      const fit = fitOf(now, { width: container.clientWidth, height: container.clientHeight });
      if (!fit) return false;
      map.fitBounds(fit.bounds, { padding: fit.padding, maxZoom: fit.maxZoom, duration: animate ? 600 : 0 });
      return true;
    },
    [store],
  );
  // The opening view is made once, as soon as a shown unit has a position and the map has a size: the first positions
  // may come over the live socket after the list has loaded, and the map's element may be laid out a moment later.
  useEffect(() => {
    if (!loaded || !mapReady || opened.current) return;
    if (Number.isInteger(linkedUnit) && linkedUnit > 0 && store.get(linkedUnit)) {
      opened.current = true;
      return;
    }
    opened.current = showAll(false);
    if (opened.current) return;
    const map = handleRef.current?.map;
    let trying = false;
    let stop = () => {};
    const retry = () => {
      // A fit may resize the map, whose resize event would ask again from inside this call.
      if (trying || opened.current) return;
      trying = true;
      opened.current = showAll(false);
      trying = false;
      if (opened.current) stop();
    };
    const unsubscribe = store.subscribe(retry);
    map?.on('resize', retry);
    stop = () => {
      unsubscribe();
      map?.off('resize', retry);
    };
    return stop;
  }, [loaded, mapReady, linkedUnit, store, showAll]);

  // History: load the chosen day.
  const requestedUnit = history?.unitId ?? null;
  const requestedDate = history?.date ?? null;
  useEffect(() => {
    if (requestedUnit === null || requestedDate === null) return;
    const abort = new AbortController();
    setHistory((h) => (h ? { ...h, loading: true, error: null, view: null, time: null, playing: false } : h));
    loadHistory(requestedUnit, requestedDate, abort.signal).then(
      (view) => setHistory((h) => (h && h.unitId === view.unitId && h.date === view.date ? { ...h, view, loading: false, time: view.positions[0]?.[0] ?? null } : h)),
      (error: unknown) => {
        if (abort.signal.aborted) return;
        setHistory((h) => (h ? { ...h, loading: false, error } : h));
      },
    );
    return () => abort.abort();
  }, [requestedUnit, requestedDate]);

  // The history's unit's zone entries and exits of its day (the day in this browser's time zone, as the history).
  const historyDay = useMemo(() => {
    if (requestedDate === null) return null;
    const [y, m, d] = requestedDate.split('-').map(Number);
    return { from: new Date(y!, m! - 1, d!).toISOString(), to: new Date(y!, m! - 1, d! + 1).toISOString() };
  }, [requestedDate]);
  const zoneEvents = useGeofenceEvents(
    { unitId: requestedUnit ?? undefined, from: historyDay?.from, to: historyDay?.to, limit: 1000 },
    requestedUnit !== null && historyDay !== null,
  );

  const replay: ReplayMarker | null = useMemo(() => {
    if (!history?.view || history.time === null) return null;
    const at = positionAt(history.view.positions, history.time);
    return at ? { position: at.position, course: at.course } : null;
  }, [history?.view, history?.time]);

  // The popup closes so that the day's paths are in view.
  const openHistory = (unitId: number) => {
    setSelectedId(null);
    setHistory({ unitId, date: isoDay(new Date()), view: null, loading: true, error: null, time: null, playing: false, speed: 60 });
  };

  // On the map, or beside it when the map cannot be drawn.
  const popupOf = (unit: TrackedUnit) => (
    <UnitPopup
      unit={unit}
      address={addresses.address(unit)}
      f={f}
      now={now}
      onClose={() => setSelectedId(null)}
      onHistory={() => openHistory(unit.id)}
    />
  );
  const selected = selectedId === null ? undefined : store.get(selectedId);
  const historyUnit = history ? store.get(history.unitId) : undefined;

  // A malformed answer is a bug, not a server message: the screen's error boundary offers refresh or ignore.
  if (store.loadState === 'error' && !isApiError(store.loadError)) throw store.loadError;
  if (store.loadState === 'error') {
    return (
      <div className="live-map">
        <Banner kind="error">{errorText(store.loadError)}</Banner>
      </div>
    );
  }

  return (
    <div className="live-map" data-connection={store.connection} data-version={version}>
      <UnitPanel
        units={shown}
        total={store.units.length}
        counts={counts}
        choices={choices}
        filter={filter}
        onFilter={setFilter}
        selectedId={selectedId}
        onPick={pick}
        addresses={addresses}
        f={f}
        now={now}
      />
      <section className="map-area" aria-label={t('map.canvas')} data-testid="map-canvas">
        {store.loadState === 'loading' && <p className="map-loading">{t('common.loading')}</p>}
        {mapFailure ? (
          <p className="map-unavailable" role="status">
            {t('map.unavailable')}
          </p>
        ) : (
          <Suspense fallback={<p className="map-loading">{t('common.loading')}</p>}>
            <MapCanvas
              store={store}
              clusters={clusters}
              include={include}
              filterKey={filterKey}
              selectedId={selectedId}
              onSelect={setSelectedId}
              focus={focus}
              history={history?.view ?? null}
              replay={replay}
              language={i18n.language}
              subsiteId={brand.subsiteId}
              ariaLabel={t('map.canvas')}
              onFailure={setMapFailure}
              onReady={(handle) => {
                handleRef.current = handle;
                setMapReady(handle !== null);
              }}
              popup={popupOf}
              zones={zonesShown ? (zones.data ?? null) : null}
              onZonePick={pickZone}
              zoneEvents={zoneEvents.data ?? null}
              onFleetDrawn={onFleetDrawn}
            />
          </Suspense>
        )}
        {!mapFailure && (
          <GeofenceToggle
            shown={zonesShown}
            onChange={(shown) => {
              setZonesShown(shown);
              writeZonesShown(shown);
              if (!shown) setPickedZoneId(null);
            }}
          />
        )}
        {!mapFailure && mapReady && (
          <button type="button" className="map-show-all" title={t('map.showAllHint')} onClick={() => showAll(true)} data-testid="map-show-all">
            {t('map.showAll')}
          </button>
        )}
        {pickedZone && <ZoneUnitsPanel zone={pickedZone} onClose={() => setPickedZoneId(null)} />}
        <p className={`connection connection-${store.connection}`} role="status" data-testid="connection">
          {t(`map.connection.${store.connection}`)}
        </p>
        {history && (
          <HistoryBar
            unitName={historyUnit?.name ?? ''}
            date={history.date}
            onDate={(date) => setHistory((h) => (h ? { ...h, date } : h))}
            view={history.view}
            loading={history.loading}
            error={history.error}
            time={history.time}
            onTime={(time) => setHistory((h) => (h ? { ...h, time } : h))}
            playing={history.playing}
            onPlaying={(playing) => setHistory((h) => (h ? { ...h, playing } : h))}
            speed={history.speed}
            onSpeed={(speed) => setHistory((h) => (h ? { ...h, speed } : h))}
            onClose={() => setHistory(null)}
            f={f}
          >
            <HistoryZoneEvents events={zoneEvents.data ?? []} loading={zoneEvents.isPending} />
          </HistoryBar>
        )}
      </section>
      {selected && mapFailure && popupOf(selected)}
    </div>
  );
}
