import { lazy, Suspense, startTransition, useCallback, useDeferredValue, useEffect, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { UnitView } from '../../../modules/units/model';
import { PURPOSE_MAX, NOTE_MAX, TRIP_TYPES, type TripLogEntry, type TripType } from '../../../modules/trips/model';
import { ColumnChooser, type DataColumn, DataTable } from '../../components/DataTable';
import { AppDialog, useDialogs } from '../../components/Dialogs';
import { SelectField } from '../../components/Form';
import { PeriodPicker } from '../../components/PeriodPicker';
import { UnitPicker } from '../../components/UnitPicker';
import { errorText } from '../../lib/api';
import { useAddressState } from '../../lib/address-state';
import { localeTag } from '../../lib/i18n';
import { type TableView, useTableView } from '../../lib/table-view';
import {
  type TripPeriod,
  useAttestedTrips,
  useBulkType,
  useCheckIn,
  useCheckOut,
  useMergeTrips,
  usePurposes,
  useSplitTrip,
  useTripDrivers,
  useTripList,
  useTripPath,
  useTriplogUnits,
  useUpdateTrip,
} from './api';
import { AttestPanel } from './AttestPanel';
import { ExportMenu } from './ExportMenu';
import { PairSummary } from './PairSummary';
import { PurposePicker } from './PurposePicker';
import { PurposesDialog } from './PurposesDialog';
import { TriplogTabs } from '../../components/TriplogTabs';
import { monthOf, rangeProblem } from './range';
import './triplog.css';

const TripMap = lazy(() => import('./TripMap'));

/** How long the confirmation of a save stays. */
const SAVED_MS = 4000;

const DEFAULT_VIEW: TableView = { sorting: [], hidden: [] };

/** What the address holds: the unit, the period's days and the trip on the map. */
const QUERY_KEYS = ['unit', 'from', 'to', 'trip'] as const;
type QueryKey = (typeof QUERY_KEYS)[number];
type TriplogQuery = Partial<Record<QueryKey, string>>;

function withChanges(current: TriplogQuery, changes: Partial<Record<QueryKey, string | undefined>>): TriplogQuery {
  const next = { ...current };
  for (const [key, value] of Object.entries(changes) as Array<[QueryKey, string | undefined]>) {
    if (value === undefined) delete next[key];
    else next[key] = value;
  }
  return next;
}

const readQuery = (params: URLSearchParams): TriplogQuery =>
  Object.fromEntries(QUERY_KEYS.flatMap((key) => (params.has(key) ? [[key, params.get(key)!]] : [])));

/** The trip log's keys set or removed; any other parameter of the address stays. */
function writeQuery(query: TriplogQuery, current: URLSearchParams): URLSearchParams {
  for (const key of QUERY_KEYS) {
    const value = query[key];
    if (value === undefined) current.delete(key);
    else current.set(key, value);
  }
  return current;
}

/** A trip's row at 1280 px (two lines of start and stop, or a field, and the cell's padding), so few rows are drawn twice. */
const TRIP_ROW_HEIGHT = 88;

const NO_TRIPS: TripLogEntry[] = [];
const NOTHING_ARRIVED = { data: undefined, openAtEnd: null };

/** Trips per page; the bulk type applies to the trips of the page shown. */
const PAGE_SIZE = 50;

/** A text cell (purpose, note) saved when it loses focus and changed. */
function TextCell({
  label,
  value,
  max,
  onSave,
  testId,
}: {
  label: string;
  value: string | null;
  max: number;
  onSave: (text: string) => void;
  testId: string;
}) {
  const [text, setText] = useState(value ?? '');
  useEffect(() => setText(value ?? ''), [value]);
  return (
    <input
      className="field-input triplog-text"
      aria-label={label}
      value={text}
      maxLength={max}
      data-testid={testId}
      onChange={(event) => setText(event.target.value)}
      onBlur={() => {
        if (text.trim() !== (value ?? '')) onSave(text);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Enter') event.currentTarget.blur();
      }}
    />
  );
}

/**
 * Spec §4: check a driver in from a trip (this and later trips; the unit's driver is checked out first), or check
 * the unit's driver out after it. "No driver" is offered and refused by the server with its reason.
 */
function DriverDialog({ trip, when, onClose, attempt }: { trip: TripLogEntry | null; when: string; onClose: () => void; attempt: (work: () => Promise<unknown>) => Promise<boolean> }) {
  const { t } = useTranslation();
  const drivers = useTripDrivers();
  const checkIn = useCheckIn();
  const checkOut = useCheckOut();
  const [driver, setDriver] = useState('');
  useEffect(() => setDriver(trip?.driverUserId ? String(trip.driverUserId) : ''), [trip]);
  const options = [{ value: '', label: t('triplog.noDriver') }, ...(drivers.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))];
  return (
    <AppDialog isOpen={trip !== null} onOpenChange={(open) => !open && onClose()} title={t('triplog.driverOf', { time: when })}>
      <SelectField label={t('triplog.driver')} value={driver} onChange={setDriver} options={options} testId="triplog-driver" />
      <div className="dialog-actions">
        <Button className="btn btn-secondary" onPress={onClose}>
          {t('common.cancel')}
        </Button>
        <Button
          className="btn btn-secondary"
          isDisabled={checkOut.isPending}
          onPress={() => void attempt(() => checkOut.mutateAsync(trip!.id)).then((ok) => ok && onClose())}
        >
          {t('triplog.checkOut')}
        </Button>
        <Button
          className="btn btn-primary"
          isDisabled={checkIn.isPending}
          onPress={() => void attempt(() => checkIn.mutateAsync({ id: trip!.id, driverUserId: driver ? Number(driver) : null })).then((ok) => ok && onClose())}
        >
          {t('triplog.checkIn')}
        </Button>
      </div>
    </AppDialog>
  );
}

const MAP_ICON = (
  <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
    <path d="M1 3.5l4.5-2 5 2 4.5-2v11l-4.5 2-5-2-4.5 2v-11zm4.5-.3v9.6m5-8.1v9.6" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinejoin="round" />
  </svg>
);

const LOCK_ICON = (
  <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">
    <path d="M4 7V5a4 4 0 118 0v2h1v8H3V7h1zm2 0h4V5a2 2 0 10-4 0v2z" fill="currentColor" />
  </svg>
);

/**
 * Spec §2 /user/create-triplog: a unit's trips in a period (this month by default, at most 12 months), totals per
 * type, type one by one or per page, purpose (a default purpose or free text), note, merge and split, driver
 * check-in/out, pairwise summaries of selected trips, and attesting a month (attested trips read-only).
 */
/** Where the trip log opens without a unit asked for: the trip-log unit heard from last (it has the latest trips). */
function latestDriven(units: UnitView[]): UnitView | undefined {
  const seen = (unit: UnitView) => (unit.LastSeen === null ? 0 : Date.parse(unit.LastSeen));
  return [...units].sort((a, b) => Number(b.DeviceKind === 'triplog') - Number(a.DeviceKind === 'triplog') || seen(b) - seen(a))[0];
}

export function TriplogPage() {
  const { t, i18n } = useTranslation();
  const dialogs = useDialogs();
  const units = useTriplogUnits();
  const purposes = usePurposes();
  // The unit, the period and the trip on the map live in the address: a reload or a shared link shows the same.
  const [query, setQueryState] = useAddressState<TriplogQuery>(readQuery, writeQuery);
  const setQuery = useCallback(
    (changes: Partial<Record<QueryKey, string | undefined>>) => setQueryState((current) => withChanges(current, changes)),
    [setQueryState],
  );
  const askedUnit = Number(query.unit);
  const unitId = units.data?.some((unit) => unit.ID === askedUnit) ? askedUnit : (latestDriven(units.data ?? [])?.ID ?? null);
  const from = query.from;
  const to = query.to;
  const askedTrip = Number(query.trip) || null;
  const setPeriod = (period: { from?: string; to?: string }) => {
    setQuery({ from: period.from, to: period.to });
    setPage(null);
  };
  /** The page shown; null: the last (the latest trips), where a unit or period opens. */
  const [page, setPage] = useState<number | null>(null);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [bulkType, setBulkType] = useState<TripType>('business');
  const [driverTrip, setDriverTrip] = useState<TripLogEntry | null>(null);
  const [showPairs, setShowPairs] = useState(false);
  const [purposesOpen, setPurposesOpen] = useState(false);
  const [attestMonth, setAttestMonth] = useState('');
  const [choosingColumns, setChoosingColumns] = useState(false);
  const view = useTableView('triplog', DEFAULT_VIEW);

  // The unit shown goes to the address too (the first unit when none, or one not seen, was asked for).
  useEffect(() => {
    if (unitId !== null && askedUnit !== unitId) setQuery({ unit: String(unitId) });
  }, [unitId, askedUnit, setQuery]);

  // Spec §5: the upper day not before the lower one, at most 12 months; a bad range is not asked for.
  const problem = rangeProblem(from, to);
  const period: TripPeriod | null = unitId === null || problem !== null ? null : { unitId, from, to };
  const list = useTripList(period);
  const attested = useAttestedTrips(period);
  const listed = period ? list.data : undefined;
  const periodKey = period ? `${period.unitId}|${period.from ?? ''}|${period.to ?? ''}` : null;
  // The trips are drawn in a render of their own that React may interrupt (a transition), not in the one in which they
  // arrive: that one is synchronous (the query's notification) and would block input for as long as the whole page
  // takes. A unit or period opens on its latest trips once they are in (not while the previous period's trips still
  // stand in for them); the opening goes with the trips it was meant for.
  const arrived = useMemo(
    () => ({ data: listed, openAtEnd: listed && !list.isPlaceholderData ? periodKey : null }),
    [listed, list.isPlaceholderData, periodKey],
  );
  const shownData = useDeferredValue(arrived, NOTHING_ARRIVED);
  const data = shownData.data;
  const timeZone = data?.timeZone;
  // This month by default: the server answers the period it read; the pickers show it.
  useEffect(() => {
    if (!data || from !== undefined) return;
    const day = (iso: string, shift = 0) => new Date(Date.parse(iso) + shift).toLocaleDateString('sv-SE', { timeZone: data.timeZone });
    setQuery({ from: day(data.from), to: day(data.to, -1) });
  }, [data, from, setQuery]);
  // The attest month follows the start of the period until the user picks another.
  useEffect(() => {
    if (from && problem === null) setAttestMonth(monthOf(from));
  }, [from, problem]);

  const update = useUpdateTrip();
  const bulk = useBulkType();
  const merge = useMergeTrips();
  const split = useSplitTrip();

  const trips = data?.trips ?? NO_TRIPS;
  const locked = useMemo(() => new Set(attested.data?.attestedTripIds ?? []), [attested.data]);
  const pages = Math.max(1, Math.ceil(trips.length / PAGE_SIZE));
  const pageShown = page === null ? pages - 1 : Math.min(page, pages - 1);
  const shown = useMemo(() => trips.slice(pageShown * PAGE_SIZE, (pageShown + 1) * PAGE_SIZE), [trips, pageShown]);
  const selectedTrips = useMemo(() => trips.filter((trip) => selected.has(trip.id)), [trips, selected]);
  // The trip on the map: the one asked for while it is in the period, else the latest.
  const mapTrip = trips.find((trip) => trip.id === askedTrip) ?? trips.at(-1) ?? null;
  const tripPath = useTripPath(mapTrip, timeZone);
  const path = tripPath.data ?? (tripPath.isError ? [] : null);

  // The table's rows follow in a transition of their own after the rest of the page is in: two shorter commits
  // instead of one long one.
  const [table, setTable] = useState<{ rows: TripLogEntry[]; openAtEnd: string | null }>({ rows: NO_TRIPS, openAtEnd: null });
  useEffect(() => {
    startTransition(() => setTable({ rows: shown, openAtEnd: shownData.openAtEnd }));
  }, [shown, shownData.openAtEnd]);

  // "Saved" shows for a few seconds after each change went through.
  useEffect(() => {
    if (savedAt === null) return;
    const timer = setTimeout(() => setSavedAt(null), SAVED_MS);
    return () => clearTimeout(timer);
  }, [savedAt]);

  const locale = localeTag(i18n.language);
  // The formats made once per language and time zone: a row formats several times, and each `toLocaleString` with
  // options builds a new formatter.
  const formats = useMemo(
    () => ({
      time: new Intl.DateTimeFormat(locale, { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }),
      day: new Intl.DateTimeFormat('sv-SE', { timeZone }),
      clock: new Intl.DateTimeFormat(locale, { timeZone, hour: '2-digit', minute: '2-digit' }),
      km: new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
    }),
    [locale, timeZone],
  );
  const time = (iso: string) => formats.time.format(new Date(iso));
  const sameDay = (a: string, b: string) => formats.day.format(new Date(a)) === formats.day.format(new Date(b));
  const clock = (iso: string) => formats.clock.format(new Date(iso));
  const km = (metres: number) => formats.km.format(metres / 1000);
  const duration = (seconds: number) => `${Math.floor(seconds / 3600)}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}`;
  const typeOptions = TRIP_TYPES.map((type) => ({ value: type, label: t(`triplog.type.${type}`) }));
  const defaultPurposes = purposes.data?.purposes ?? [];

  async function attempt(work: () => Promise<unknown>) {
    try {
      await work();
      setSavedAt(Date.now());
      return true;
    } catch (error) {
      await dialogs.showError(errorText(error));
      return false;
    }
  }

  const selectedKeys = useMemo(() => new Set([...selected].map(String)), [selected]);
  // Trips stay in the order they were driven (the trip log's legal order); columns may be hidden per user.
  // A driver taken from the car's booking is marked as such: the booking says who had the car, not who drove it.
  const bookedMark = (trip: TripLogEntry) =>
    trip.driverSource === 'booking' ? (
      <span className="triplog-booked" title={t('triplog.bookedDriverTitle')}>
        {' '}
        ({t('triplog.bookedDriver')})
      </span>
    ) : null;

  const columns: DataColumn<TripLogEntry>[] = [
    {
      // Start and stop in one column (stop's date only when it is another day), so that the log fits 1280 px.
      id: 'start',
      header: t('triplog.tripColumn'),
      canHide: false,
      rowHeader: true,
      minRem: 11,
      cell: (trip) => (
        <>
          <div className="triplog-leg">
            <span className="triplog-when">{time(trip.startTime)}</span> <span className="triplog-address">{trip.startAddress ?? '–'}</span>
          </div>
          <div className="triplog-leg">
            <span className="triplog-when">
              {'→ '}
              {sameDay(trip.startTime, trip.stopTime) ? clock(trip.stopTime) : time(trip.stopTime)}
            </span>{' '}
            <span className="triplog-address">{trip.stopAddress ?? '–'}</span>
          </div>
          {locked.has(trip.id) && (
            <span className="triplog-lock" data-testid={`trip-locked-${trip.id}`}>
              {LOCK_ICON}
              {t('triplog.attested')}
            </span>
          )}
        </>
      ),
    },
    {
      // The distance with the odometer readings under it (the log's legal content, in less width).
      id: 'distance',
      header: t('triplog.distance'),
      align: 'end',
      minRem: 7,
      cell: (trip) => (
        <>
          <div className="triplog-km">{km(trip.distanceM)} km</div>
          <div className="triplog-odometer" title={t('triplog.odometer')}>
            <span className="visually-hidden">{t('triplog.odometer')}: </span>
            {km(trip.odometerStartM)} – {km(trip.odometerStopM)}
          </div>
        </>
      ),
    },
    {
      id: 'type',
      header: t('triplog.typeColumn'),
      canHide: false,
      minRem: 8,
      cell: (trip) =>
        locked.has(trip.id) ? (
          <span className={`triplog-type triplog-type--${trip.type}`} data-testid={`trip-type-${trip.id}`}>
            {t(`triplog.type.${trip.type}`)}
          </span>
        ) : (
          <SelectField
            hideLabel
            label={t('triplog.typeOf', { time: time(trip.startTime) })}
            value={trip.type}
            onChange={(value) => void attempt(() => update.mutateAsync({ id: trip.id, type: value as TripType }))}
            options={typeOptions}
            testId={`trip-type-${trip.id}`}
          />
        ),
    },
    {
      id: 'purpose',
      header: t('triplog.purpose'),
      minRem: 9,
      cell: (trip) =>
        locked.has(trip.id) ? (
          <span className="triplog-readonly" data-testid={`trip-purpose-${trip.id}`}>
            {trip.purpose ?? '–'}
          </span>
        ) : (
          <PurposePicker
            label={t('triplog.purposeOf', { time: time(trip.startTime) })}
            value={trip.purpose}
            purposes={defaultPurposes}
            max={PURPOSE_MAX}
            testId={`trip-purpose-${trip.id}`}
            onSave={(text) => void attempt(() => update.mutateAsync({ id: trip.id, purpose: text }))}
          />
        ),
    },
    {
      id: 'note',
      header: t('triplog.note'),
      minRem: 8,
      cell: (trip) =>
        locked.has(trip.id) ? (
          <span className="triplog-readonly" data-testid={`trip-note-${trip.id}`}>
            {trip.note ?? '–'}
          </span>
        ) : (
          <TextCell
            label={t('triplog.noteOf', { time: time(trip.startTime) })}
            value={trip.note}
            max={NOTE_MAX}
            testId={`trip-note-${trip.id}`}
            onSave={(text) => void attempt(() => update.mutateAsync({ id: trip.id, note: text }))}
          />
        ),
    },
    {
      id: 'driver',
      header: t('triplog.driver'),
      minRem: 7,
      cell: (trip) =>
        locked.has(trip.id) ? (
          <span className="triplog-readonly" data-testid={`trip-driver-${trip.id}`}>
            {trip.driverName ?? t('triplog.noDriver')}
            {bookedMark(trip)}
          </span>
        ) : (
          <Button className="btn btn-link" onPress={() => setDriverTrip(trip)} data-testid={`trip-driver-${trip.id}`}>
            {trip.driverName ?? t('triplog.noDriver')}
            {bookedMark(trip)}
            <span className="visually-hidden"> ({t('triplog.driverOf', { time: time(trip.startTime) })})</span>
          </Button>
        ),
    },
    {
      id: 'actions',
      header: t('triplog.actions'),
      headerHidden: true,
      canHide: false,
      minRem: 4.5,
      cell: (trip) => (
        <div className="triplog-row-actions">
          <Button
            className="btn btn-secondary triplog-small triplog-show"
            aria-pressed={mapTrip?.id === trip.id}
            aria-label={t('triplog.showOnMap', { time: time(trip.startTime) })}
            onPress={() => setQuery({ trip: String(trip.id) })}
            data-testid={`trip-show-${trip.id}`}
          >
            {MAP_ICON}
          </Button>
          {trip.merged && !locked.has(trip.id) && (
            <Button
              className="btn btn-secondary triplog-small"
              onPress={() =>
                void attempt(async () => {
                  await split.mutateAsync(trip.id);
                  setSelected(new Set());
                })
              }
              aria-label={t('triplog.splitTrip', { time: time(trip.startTime) })}
            >
              {t('triplog.split')}
            </Button>
          )}
        </div>
      ),
    },
  ];

  const listError = period && list.isError ? errorText(list.error) : null;
  const allDistance = data?.totals.all.distanceM ?? 0;

  return (
    <div className="page triplog-page">
      <div className="triplog-heading">
        <h1 className="page-title">{t('triplog.title')}</h1>
        <div className="triplog-heading-actions">
          <Button className="btn btn-secondary" onPress={() => setPurposesOpen(true)} data-testid="purposes-open">
            {t('triplog.purposes.open')}
          </Button>
          <Button className="btn btn-secondary" onPress={() => setChoosingColumns(true)} isDisabled={!view.ready} data-testid="triplog-columns">
            {t('table.columns')}
          </Button>
          {/* Until the server has answered the period (this month by default), an export would not be of what is shown. */}
          <ExportMenu unitId={unitId} from={from} to={to} isDisabled={problem !== null || from === undefined} />
        </div>
      </div>

      <TriplogTabs />

      <div className="triplog-filters">
        <UnitPicker
          label={t('triplog.unit')}
          units={units.data ?? []}
          selectionMode="single"
          selected={unitId === null ? [] : [unitId]}
          onChange={([id]) => {
            if (id === undefined) return;
            setQuery({ unit: String(id), trip: undefined });
            setSelected(new Set());
            setPage(null);
          }}
          testId="triplog-unit"
        />
        <PeriodPicker
          from={from}
          to={to}
          fromLabel={t('triplog.from')}
          toLabel={t('triplog.to')}
          idPrefix="triplog"
          invalid={problem !== null}
          errorId="triplog-range-error"
          onChange={setPeriod}
        />
        <Button
          className="btn btn-secondary"
          onPress={() => setPeriod({})}
        >
          {t('triplog.thisMonth')}
        </Button>
      </div>
      {problem && (
        <p className="field-error triplog-range-error" id="triplog-range-error" role="alert" data-testid="triplog-range-error">
          {t(`triplog.range.${problem}`)}
        </p>
      )}

      {units.data && units.data.length === 0 && <p className="triplog-empty">{t('triplog.noUnits')}</p>}
      {listError && (
        <p className="field-error" role="alert">
          {listError}
        </p>
      )}

      {data && (
        <>
          <div className="triplog-overview">
            <section aria-label={t('triplog.totals')} className="triplog-card triplog-totals-card">
              <h2 className="triplog-card-title">{t('triplog.totals')}</h2>
              <div className="triplog-totals" data-testid="triplog-totals">
                {(['business', 'private', 'other', 'all'] as const).map((type) => {
                  const share = type === 'all' ? (allDistance > 0 ? 100 : 0) : allDistance > 0 ? (data.totals[type].distanceM / allDistance) * 100 : 0;
                  return (
                    <div key={type} className={`triplog-total triplog-total--${type}`} data-testid={`triplog-total-${type}`}>
                      <span className="triplog-total-label">{type === 'all' ? t('triplog.total') : t(`triplog.type.${type}`)}</span>
                      <span className="triplog-total-count">{t('triplog.tripCount', { count: data.totals[type].trips })}</span>
                      <span className="triplog-total-km">{km(data.totals[type].distanceM)} km</span>
                      <span className="triplog-total-time">{duration(data.totals[type].durationS)} h</span>
                      <span className="triplog-bar" aria-hidden="true">
                        <span className="triplog-bar-fill" style={{ width: `${share.toFixed(1)}%` }} />
                      </span>
                    </div>
                  );
                })}
              </div>
            </section>
            <section aria-label={t('triplog.mapTitle')} className="triplog-card triplog-map-card">
              <h2 className="triplog-card-title">
                {t('triplog.mapTitle')}
                {mapTrip && <span className="triplog-map-when"> · {time(mapTrip.startTime)}</span>}
              </h2>
              {mapTrip ? (
                <Suspense fallback={<div className="triplog-map triplog-map--loading">{t('common.loading')}</div>}>
                  <TripMap trip={mapTrip} path={path} label={t('triplog.mapOf', { time: time(mapTrip.startTime) })} asked={mapTrip.id === askedTrip} />
                </Suspense>
              ) : (
                <p className="triplog-muted">{t('triplog.mapEmpty')}</p>
              )}
            </section>
          </div>

          <div className="triplog-actions">
            <div className="triplog-action-group">
              <SelectField label={t('triplog.bulkType')} value={bulkType} onChange={(value) => setBulkType(value as TripType)} options={typeOptions} testId="triplog-bulk-type" />
              <Button
                className="btn btn-secondary"
                isDisabled={shown.length === 0 || bulk.isPending}
                onPress={() => void attempt(() => bulk.mutateAsync({ tripIds: shown.map((trip) => trip.id), type: bulkType }))}
              >
                {t('triplog.applyToPage')}
              </Button>
            </div>
            <div className="triplog-action-group">
              <span className="triplog-selected" aria-live="polite">
                {t('triplog.selectedCount', { count: selected.size })}
              </span>
              <Button className="btn btn-secondary" isDisabled={trips.length === 0} onPress={() => setShowPairs(true)} data-testid="pairs-open">
                {t('triplog.pairs.open')}
              </Button>
              <Button
                className="btn btn-primary"
                isDisabled={selected.size < 2 || merge.isPending}
                onPress={() =>
                  void attempt(async () => {
                    await merge.mutateAsync({ tripIds: [...selected] });
                    setSelected(new Set());
                  })
                }
              >
                {t('triplog.merge')}
              </Button>
            </div>
          </div>

          {showPairs && <PairSummary trips={selectedTrips} time={time} km={km} duration={duration} onClose={() => setShowPairs(false)} />}

          {trips.length === 0 ? (
            <div className="triplog-empty-state" data-testid="triplog-no-data">
              <svg viewBox="0 0 24 24" width="36" height="36" aria-hidden="true" focusable="false">
                <path d="M3 17h2l2-6h10l2 6h2M6 17a2 2 0 104 0 2 2 0 10-4 0m8 0a2 2 0 104 0 2 2 0 10-4 0" fill="none" stroke="currentColor" strokeWidth="1.5" />
              </svg>
              <p className="triplog-empty-title">{t('triplog.noData')}</p>
              <p className="triplog-muted">{t('triplog.noDataHint')}</p>
            </div>
          ) : table.rows.length === 0 ? null : (
            // Mounted with its rows (not empty first), so that it opens on its end without drawing its first rows.
            <DataTable
              label={t('triplog.title')}
              rows={table.rows}
              columns={columns}
              rowId={(trip) => String(trip.id)}
              view={view}
              selection={{
                selected: selectedKeys,
                onChange: (next) => setSelected(new Set([...next].map(Number))),
                rowLabel: (trip) => t('triplog.selectTrip', { time: time(trip.startTime) }),
              }}
              rowProps={(trip) => ({
                'data-testid': `trip-row-${trip.id}`,
                className: [locked.has(trip.id) ? 'triplog-row--locked' : null, mapTrip?.id === trip.id ? 'triplog-row--shown' : null].filter(Boolean).join(' ') || undefined,
              })}
              rowHeight={TRIP_ROW_HEIGHT}
              openAtEnd={table.openAtEnd}
              testId="triplog-table"
              className="triplog-table"
            />
          )}

          <DriverDialog trip={driverTrip} when={driverTrip ? time(driverTrip.startTime) : ''} onClose={() => setDriverTrip(null)} attempt={attempt} />

          {pages > 1 && (
            <nav className="triplog-pager" aria-label={t('triplog.pages')}>
              <Button className="btn btn-secondary" isDisabled={pageShown === 0} onPress={() => setPage(pageShown - 1)}>
                {t('triplog.previous')}
              </Button>
              <span>{t('triplog.pageOf', { page: pageShown + 1, pages })}</span>
              <Button className="btn btn-secondary" isDisabled={pageShown >= pages - 1} onPress={() => setPage(pageShown + 1)}>
                {t('triplog.next')}
              </Button>
            </nav>
          )}

          {attestMonth && (
            <div className="triplog-attest">
              <AttestPanel month={attestMonth} onMonthChange={setAttestMonth} />
            </div>
          )}
        </>
      )}

      {/* A toast in the window's corner, in view wherever the page is scrolled; a live region, so it is read out. */}
      <div className="triplog-saved" role="status" data-testid="triplog-saved">
        {savedAt !== null && t('triplog.saved')}
      </div>
      <PurposesDialog isOpen={purposesOpen} onClose={() => setPurposesOpen(false)} />
      <ColumnChooser columns={columns} view={view} isOpen={choosingColumns} onClose={() => setChoosingColumns(false)} title={t('table.columns')} />
    </div>
  );
}
