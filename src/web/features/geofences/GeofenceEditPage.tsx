import { type FormEvent, lazy, Suspense, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import {
  type Deactivation,
  GEOFENCE_NAME_MAX,
  GEOFENCE_RADIUS_MAX,
  GEOFENCE_RADIUS_MIN_DEFAULT,
  GEOFENCE_SHAPES,
  type GeofenceInput,
  type GeofencePoint,
  type GeofenceShape,
  type GeofenceView,
  geofenceInputSchema,
} from '../../../modules/geofences/model';
import type { PlaceGeocodeCandidate } from '../../../modules/places/model';
import { Banner, Field, SelectField } from '../../components/Form';
import { NotFoundPage } from '../../components/NotFoundPage';
import { UnitPicker } from '../../components/UnitPicker';
import { errorText, isApiError } from '../../lib/api';
import { localeTag, translateMessage } from '../../lib/i18n';
import { geofencePath, PATHS } from '../../lib/paths';
import { geocodeAddress, useGeofence, useGeofences, useGeofenceSettings, useGeofenceUnits, useSaveGeofence } from '../../components/geofences/api';
import type { ZoneGeometry } from './GeofenceDrawMap';
import { GeofenceEventLog } from './GeofenceEventLog';
import './geofences.css';

const GeofenceDrawMap = lazy(() => import('./GeofenceDrawMap'));

interface WindowDraft extends Deactivation {
  key: number;
}

interface Draft {
  name: string;
  shape: GeofenceShape;
  latitude: string;
  longitude: string;
  radius: string;
  points: GeofencePoint[] | null;
  units: number[];
  windows: WindowDraft[];
  theftMode: boolean;
  realTime: boolean;
  active: boolean;
}

let windowKey = 0;
const newWindow = (): WindowDraft => ({ key: ++windowKey, days: [0, 6], from: '00:00', to: '24:00' });

function draftOf(zone: GeofenceView | undefined): Draft {
  if (!zone) {
    return { name: '', shape: 'circle', latitude: '', longitude: '', radius: '', points: null, units: [], windows: [], theftMode: false, realTime: true, active: true };
  }
  return {
    name: zone.name,
    shape: zone.shape,
    latitude: zone.center ? zone.center.latitude.toFixed(6) : '',
    longitude: zone.center ? zone.center.longitude.toFixed(6) : '',
    radius: zone.radiusM === null ? '' : String(zone.radiusM),
    points: zone.points,
    units: zone.units.map((unit) => unit.id),
    windows: zone.deactivations.map((window) => ({ ...window, key: ++windowKey })),
    theftMode: zone.theftMode,
    realTime: zone.realTime,
    active: zone.active,
  };
}

/** Decimal input with a comma or a dot (spec §5); NaN when it is not a number. */
const decimal = (value: string) => (/^-?\d+([.,]\d+)?$/.test(value.trim()) ? Number(value.trim().replace(',', '.')) : Number.NaN);

/** 00:00 … 23:45 as start times, 00:15 … 24:00 as end times (15-minute steps). */
const timeOf = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
const STARTS = Array.from({ length: 96 }, (_, i) => timeOf(i * 15));
const ENDS = Array.from({ length: 96 }, (_, i) => timeOf((i + 1) * 15));
/** Monday first, as the week reads in the three markets (day ids: 0 is Sunday). */
const WEEK = [1, 2, 3, 4, 5, 6, 0];

/** Spec §2 /user/geofences/add-edit-geofences/{geofenceID}: a new zone, or an existing one. */
export function GeofenceEditPage() {
  const { t } = useTranslation();
  const { geofenceID } = useParams();
  const id = geofenceID === undefined ? null : /^\d+$/.test(geofenceID) ? Number(geofenceID) : Number.NaN;
  const zone = useGeofence(id === null || Number.isNaN(id) ? null : id);
  if (Number.isNaN(id)) return <NotFoundPage />;
  if (id !== null && zone.isPending) return <p className="page">{t('common.loading')}</p>;
  if (id !== null && zone.isError) {
    if (isApiError(zone.error) && zone.error.status === 404) return <NotFoundPage />;
    return (
      <div className="page">
        <Banner kind="error">{errorText(zone.error)}</Banner>
      </div>
    );
  }
  return <GeofenceForm key={id ?? 'new'} id={id} zone={zone.data} />;
}

function GeofenceForm({ id, zone }: { id: number | null; zone: GeofenceView | undefined }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const [draft, setDraft] = useState<Draft>(() => draftOf(zone));
  const [fields, setFields] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(() =>
    (location.state as { saved?: boolean } | null)?.saved ? { kind: 'success', text: t('geofences.saved') } : null,
  );
  // A new zone starts with drawing; an existing one with editing its shape.
  const [tool, setTool] = useState<'draw' | 'edit'>(zone ? 'edit' : 'draw');
  const [address, setAddress] = useState('');
  const [candidates, setCandidates] = useState<PlaceGeocodeCandidate[] | null>(null);
  const [lookingUp, setLookingUp] = useState(false);
  const [flyTo, setFlyTo] = useState<{ latitude: number; longitude: number; seq: number } | null>(null);
  const units = useGeofenceUnits();
  const settings = useGeofenceSettings();
  const zones = useGeofences('');
  const save = useSaveGeofence();
  const readOnly = zone !== undefined && !zone.editable;
  const radiusMin = settings.data?.radiusMinM ?? GEOFENCE_RADIUS_MIN_DEFAULT;
  const radiusMax = settings.data?.radiusMaxM ?? GEOFENCE_RADIUS_MAX;
  const perUnitMax = settings.data?.perUnitMax ?? 5;
  const set = <K extends keyof Draft>(name: K, value: Draft[K]) => setDraft((current) => ({ ...current, [name]: value }));
  const setWindow = (key: number, change: Partial<Deactivation>) =>
    setDraft((current) => ({ ...current, windows: current.windows.map((window) => (window.key === key ? { ...window, ...change } : window)) }));
  const metres = new Intl.NumberFormat(localeTag(i18n.language));

  const lat = decimal(draft.latitude);
  const lon = decimal(draft.longitude);
  const radius = /^\d+$/.test(draft.radius.trim()) ? Number(draft.radius.trim()) : Number.NaN;
  const geometry: ZoneGeometry = useMemo(
    () => ({
      shape: draft.shape,
      center: Number.isFinite(lat) && Number.isFinite(lon) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? { latitude: lat, longitude: lon } : null,
      // The drawing shows a radius it can draw; the field keeps what was typed (and says what is wrong with it).
      radiusM: Number.isFinite(radius) && radius > 0 ? Math.min(radius, radiusMax) : null,
      points: draft.points,
    }),
    [draft.shape, lat, lon, radius, radiusMax, draft.points],
  );
  const dayNames = useMemo(() => {
    const format = new Intl.DateTimeFormat(localeTag(i18n.language), { weekday: 'short' });
    // 4 January 2026 was a Sunday: day id 0.
    return Object.fromEntries([0, 1, 2, 3, 4, 5, 6].map((day) => [day, format.format(new Date(Date.UTC(2026, 0, 4 + day, 12)))]));
  }, [i18n.language]);

  function drawn(next: ZoneGeometry | null) {
    setFields((current) => {
      const { center: _center, radiusM: _radius, points: _points, latitude: _lat, ...rest } = current;
      return rest;
    });
    setDraft((current) => {
      if (!next) return { ...current, latitude: '', longitude: '', radius: '', points: null };
      if (next.shape === 'circle') {
        return {
          ...current,
          latitude: next.center ? next.center.latitude.toFixed(6) : '',
          longitude: next.center ? next.center.longitude.toFixed(6) : '',
          radius: next.radiusM === null ? '' : String(next.radiusM),
        };
      }
      return { ...current, points: next.points };
    });
  }

  function chooseShape(shape: GeofenceShape) {
    if (shape === draft.shape) return;
    // The other shape is drawn anew: the old one's coordinates go.
    setDraft((current) => ({ ...current, shape, latitude: '', longitude: '', radius: '', points: null }));
    setTool('draw');
  }

  async function lookUp() {
    setLookingUp(true);
    setCandidates(null);
    try {
      const found = await geocodeAddress(address);
      setCandidates(found);
      if (found.length === 1) choose(found[0]!);
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    } finally {
      setLookingUp(false);
    }
  }

  function choose(candidate: PlaceGeocodeCandidate) {
    setFlyTo((previous) => ({ latitude: candidate.latitude, longitude: candidate.longitude, seq: (previous?.seq ?? 0) + 1 }));
    setAddress(candidate.address);
    setCandidates(null);
  }

  const showFirstError = () =>
    requestAnimationFrame(() => document.querySelector('.geofence-form .field-error')?.scrollIntoView({ block: 'center' }));

  /** Field errors of the shared schema and the brand's minimum radius, each under its field. */
  function localErrors(input: GeofenceInput): Record<string, string> {
    const parsed = geofenceInputSchema.safeParse(input);
    const errors: Record<string, string> = {};
    // The schema speaks in keys; the screen's own words for its keys, the server's for the rest.
    for (const issue of parsed.success ? [] : parsed.error.issues) {
      const field = issue.path.map(String).join('.') || 'form';
      if (!(field in errors)) errors[field] = i18n.exists(issue.message, { ns: 'translation' }) ? t(issue.message) : translateMessage(issue.message);
    }
    if (input.shape === 'circle') {
      if (draft.radius.trim() === '') errors.radiusM = t('geofences.radius.required');
      else if (!Number.isInteger(radius)) errors.radiusM = translateMessage('validation.invalidType');
      else if (radius < radiusMin) errors.radiusM = t('geofences.radius.tooSmall', { min: radiusMin });
      else if (radius > radiusMax) errors.radiusM = t('geofences.radius.tooLarge', { max: radiusMax });
      if (!input.center) errors.center = t('geofences.coordinates.empty');
    }
    return errors;
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setMessage(null);
    setFields({});
    const input: GeofenceInput = {
      name: draft.name,
      shape: draft.shape,
      center: draft.shape === 'circle' ? geometry.center : null,
      radiusM: draft.shape === 'circle' ? (Number.isFinite(radius) ? radius : null) : null,
      points: draft.shape === 'polygon' ? draft.points : null,
      units: draft.units,
      deactivations: draft.windows.map(({ key: _key, ...window }) => window),
      theftMode: draft.theftMode,
      realTime: draft.realTime,
      active: draft.active,
    };
    const local = localErrors(input);
    if (Object.keys(local).length > 0) {
      setFields(local);
      showFirstError();
      return;
    }
    try {
      const saved = await save.mutateAsync({ id, input });
      setMessage({ kind: 'success', text: t('geofences.saved') });
      if (id === null) navigate(geofencePath(saved.id), { replace: true, state: { saved: true } });
      else setDraft(draftOf(saved));
    } catch (error) {
      if (isApiError(error) && (error.status === 422 || error.status === 409)) {
        setFields(Object.fromEntries(Object.entries(error.fields).map(([name, messages]) => [name, messages.join(' ')])));
        showFirstError();
      }
      setMessage({ kind: 'error', text: errorText(error) });
    }
  }

  const fieldError = (name: string) => fields[name] ?? null;
  const coordinatesError = fieldError('points') ?? fieldError('center') ?? fieldError('center.latitude') ?? fieldError('center.longitude');

  return (
    <div className="page geofences-page geofence-edit-page">
      <div className="geofences-heading">
        <h1 className="page-title">{id === null ? t('geofences.newTitle') : t('geofences.editTitle', { name: zone?.name ?? '' })}</h1>
        <Link className="btn btn-secondary" to={PATHS.geofences}>
          {t('geofences.backToList')}
        </Link>
      </div>
      {readOnly && <Banner kind="info">{t('geofences.readOnlyHint')}</Banner>}
      {message && (
        <Banner kind={message.kind} onClose={() => setMessage(null)} closeLabel={t('geofences.closeMessage')}>
          <span data-testid="geofence-message">{message.text}</span>
        </Banner>
      )}
      <form className="geofence-form" onSubmit={submit} noValidate aria-label={t('geofences.formLabel')}>
        <fieldset className="geofence-card" disabled={readOnly}>
          <legend>{t('geofences.sections.zone')}</legend>
          <Field label={t('geofences.fields.name')} value={draft.name} onChange={(value) => set('name', value)} isRequired maxLength={GEOFENCE_NAME_MAX} error={fieldError('name')} testId="geofence-name" />
          <div className="geofence-row">
            <SelectField
              label={t('geofences.fields.shape')}
              value={draft.shape}
              onChange={(value) => chooseShape(value as GeofenceShape)}
              options={GEOFENCE_SHAPES.map((shape) => ({ value: shape, label: t(`geofences.shapes.${shape}`) }))}
              testId="geofence-shape"
            />
          </div>
          <div className="geofence-address-row">
            <Field label={t('geofences.address')} value={address} onChange={setAddress} description={t('geofences.addressHint')} testId="geofence-address" />
            <Button className="btn btn-secondary" onPress={lookUp} isDisabled={readOnly || address.trim().length < 2 || lookingUp} data-testid="geofence-lookup">
              {lookingUp ? t('common.loading') : t('geofences.lookUp')}
            </Button>
          </div>
          {candidates !== null && (
            <section className="geofence-candidates" aria-live="polite" aria-label={t('geofences.candidates')}>
              {candidates.length === 0 ? (
                <p>{t('geofences.noCandidates')}</p>
              ) : (
                <ul>
                  {candidates.map((candidate) => (
                    <li key={`${candidate.latitude},${candidate.longitude}`}>
                      <Button className="btn-link" onPress={() => choose(candidate)}>
                        {candidate.address}
                      </Button>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          )}
          {!readOnly && (
            <div className="geofence-tools" role="toolbar" aria-label={t('geofences.tools')}>
              <Button className="btn btn-secondary" aria-pressed={tool === 'draw'} onPress={() => setTool('draw')} data-testid="geofence-tool-draw">
                {draft.shape === 'circle' ? t('geofences.drawCircle') : t('geofences.drawPolygon')}
              </Button>
              <Button className="btn btn-secondary" aria-pressed={tool === 'edit'} onPress={() => setTool('edit')} data-testid="geofence-tool-edit">
                {t('geofences.editShape')}
              </Button>
            </div>
          )}
          <p className="geofences-hint" data-testid="geofence-draw-hint">
            {tool === 'draw' ? t(`geofences.drawHint.${draft.shape}`) : t(`geofences.editHint.${draft.shape}`)}
          </p>
          <Suspense fallback={<div className="geofence-draw-map geofences-map--loading">{t('common.loading')}</div>}>
            <GeofenceDrawMap
              geometry={geometry}
              tool={tool}
              readOnly={readOnly}
              flyTo={flyTo}
              label={t('geofences.drawMapLabel')}
              onGeometry={drawn}
              onFinished={() => setTool('edit')}
            />
          </Suspense>
          {coordinatesError && (
            <p className="field-error" role="alert" data-testid="geofence-coordinates-error">
              {coordinatesError}
            </p>
          )}
          {draft.shape === 'circle' ? (
            <div className="geofence-row">
              <Field label={t('geofences.fields.latitude')} value={draft.latitude} onChange={(value) => set('latitude', value)} inputMode="decimal" testId="geofence-latitude" />
              <Field label={t('geofences.fields.longitude')} value={draft.longitude} onChange={(value) => set('longitude', value)} inputMode="decimal" testId="geofence-longitude" />
              <Field
                label={t('geofences.fields.radiusM')}
                value={draft.radius}
                onChange={(value) => set('radius', value)}
                inputMode="numeric"
                error={fieldError('radiusM')}
                description={t('geofences.radiusHint', { min: metres.format(radiusMin), max: metres.format(radiusMax) })}
                testId="geofence-radius"
              />
            </div>
          ) : (
            <p className="geofences-muted" data-testid="geofence-points">
              {t('geofences.pointCount', { count: draft.points?.length ?? 0 })}
            </p>
          )}
        </fieldset>

        <fieldset className="geofence-card" disabled={readOnly}>
          <legend>{t('geofences.sections.units')}</legend>
          <p className="geofences-hint">{t('geofences.unitsHint', { max: perUnitMax })}</p>
          {fieldError('units') && (
            <p className="field-error" role="alert">
              {fieldError('units')}
            </p>
          )}
          <UnitPicker presentation="inline" selectionMode="multiple" units={units.data ?? []} selected={draft.units} onChange={(unitIds) => set('units', unitIds)} testId="geofence-units" />
        </fieldset>

        <fieldset className="geofence-card" disabled={readOnly}>
          <legend>{t('geofences.sections.options')}</legend>
          <label className="geofence-check">
            <input type="checkbox" checked={draft.active} onChange={(event) => set('active', event.target.checked)} data-testid="geofence-active" />
            {t('geofences.fields.active')}
          </label>
          <label className="geofence-check">
            <input type="checkbox" checked={draft.realTime} onChange={(event) => set('realTime', event.target.checked)} data-testid="geofence-realtime" />
            {t('geofences.fields.realTime')}
          </label>
          <label className="geofence-check">
            <input type="checkbox" checked={draft.theftMode} onChange={(event) => set('theftMode', event.target.checked)} data-testid="geofence-theft" />
            {t('geofences.fields.theftMode')}
          </label>
          <p className="geofences-hint">{t('geofences.theftHint')}</p>
        </fieldset>

        <fieldset className="geofence-card" disabled={readOnly}>
          <legend>{t('geofences.sections.schedule')}</legend>
          <p className="geofences-hint">{t('geofences.scheduleHint', { zone: zone?.timeZone ?? '' })}</p>
          {draft.windows.length === 0 && <p className="geofences-muted">{t('geofences.noWindows')}</p>}
          <ol className="geofence-windows">
            {draft.windows.map((window, index) => (
              <li key={window.key} className="geofence-window" data-testid={`geofence-window-${index}`}>
                <fieldset className="geofence-days">
                  <legend>{t('geofences.window.days')}</legend>
                  {WEEK.map((day) => (
                    <label key={day} className="geofence-check geofence-day">
                      <input
                        type="checkbox"
                        checked={window.days.includes(day)}
                        onChange={(event) => setWindow(window.key, { days: event.target.checked ? [...window.days, day] : window.days.filter((other) => other !== day) })}
                      />
                      {dayNames[day]}
                    </label>
                  ))}
                </fieldset>
                {fieldError(`deactivations.${index}.days`) && <p className="field-error">{fieldError(`deactivations.${index}.days`)}</p>}
                <div className="geofence-row">
                  <SelectField
                    label={t('geofences.window.from')}
                    value={window.from}
                    onChange={(value) => setWindow(window.key, { from: value })}
                    options={STARTS.map((time) => ({ value: time, label: time }))}
                    error={fieldError(`deactivations.${index}.from`)}
                    testId={`geofence-window-from-${index}`}
                  />
                  <SelectField
                    label={t('geofences.window.to')}
                    value={window.to}
                    onChange={(value) => setWindow(window.key, { to: value })}
                    options={ENDS.map((time) => ({ value: time, label: time }))}
                    error={fieldError(`deactivations.${index}.to`)}
                    testId={`geofence-window-to-${index}`}
                  />
                </div>
                <Button
                  className="btn btn-secondary btn-small"
                  onPress={() => set('windows', draft.windows.filter((other) => other.key !== window.key))}
                  aria-label={t('geofences.window.removeNumbered', { number: index + 1 })}
                >
                  {t('geofences.window.remove')}
                </Button>
              </li>
            ))}
          </ol>
          <Button className="btn btn-secondary" onPress={() => set('windows', [...draft.windows, newWindow()])} isDisabled={readOnly || draft.windows.length >= 14} data-testid="geofence-window-add">
            {t('geofences.window.add')}
          </Button>
        </fieldset>

        {!readOnly && (
          <div className="geofence-actions">
            <Button type="submit" className="btn btn-primary" isDisabled={save.isPending} data-testid="geofence-save">
              {save.isPending ? t('common.loading') : t('common.save')}
            </Button>
            <Link className="btn btn-secondary" to={PATHS.geofences}>
              {t('common.cancel')}
            </Link>
          </div>
        )}
      </form>
      {zone && <GeofenceEventLog zones={zones.data ?? [zone]} geofenceId={zone.id} />}
    </div>
  );
}
