import { type FormEvent, lazy, Suspense, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
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
import { Field, FormError, SelectField } from '../../components/Form';
import { AddressLookup, decimalInput, END_TIMES, ItemList, RecordEditPage, ShapeCard, ShapeEditLayout, START_TIMES, UnitsCard, useShapeForm, WeekdayChecks } from '../../components/ShapeEditor';
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

/** Spec §2 /user/geofences/add-edit-geofences/{geofenceID}: a new zone, or an existing one. */
export function GeofenceEditPage() {
  return <RecordEditPage param="geofenceID" useRecord={useGeofence} form={(id, zone) => <GeofenceForm id={id} zone={zone} />} />;
}

function GeofenceForm({ id, zone }: { id: number | null; zone: GeofenceView | undefined }) {
  const { t, i18n } = useTranslation();
  const [draft, setDraft] = useState<Draft>(() => draftOf(zone));
  const form = useShapeForm(t('geofences.saved'));
  const { setFields, fieldError, setMessage, saveChecked } = form;
  // A new zone starts with drawing; an existing one with editing its shape.
  const [tool, setTool] = useState<'draw' | 'edit'>(zone ? 'edit' : 'draw');
  const [address, setAddress] = useState('');
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

  const lat = decimalInput(draft.latitude);
  const lon = decimalInput(draft.longitude);
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

  function choose(candidate: PlaceGeocodeCandidate) {
    setFlyTo((previous) => ({ latitude: candidate.latitude, longitude: candidate.longitude, seq: (previous?.seq ?? 0) + 1 }));
    setAddress(candidate.address);
  }

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
    await saveChecked({
      local: localErrors(input),
      save: () => save.mutateAsync({ id, input }),
      pathOfNew: id === null ? geofencePath : null,
      onSaved: (saved) => setDraft(draftOf(saved)),
      fieldStatuses: [422, 409],
    });
  }

  const coordinatesError = fieldError('points') ?? fieldError('center') ?? fieldError('center.latitude') ?? fieldError('center.longitude');

  return (
    <ShapeEditLayout
      namespace="geofences"
      testIdPrefix="geofence"
      className="geofences-page geofence-edit-page"
      title={id === null ? t('geofences.newTitle') : t('geofences.editTitle', { name: zone?.name ?? '' })}
      backTo={PATHS.geofences}
      readOnly={readOnly}
      form={form}
      onSubmit={submit}
      saving={save.isPending}
      after={zone && <GeofenceEventLog zones={zones.data ?? [zone]} geofenceId={zone.id} />}
    >
      <ShapeCard legend={t('geofences.sections.zone')} disabled={readOnly}>
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
        <AddressLookup
          label={t('geofences.address')}
          value={address}
          onChange={setAddress}
          description={t('geofences.addressHint')}
          readOnly={readOnly}
          lookUpLabel={t('geofences.lookUp')}
          candidatesLabel={t('geofences.candidates')}
          noCandidates={t('geofences.noCandidates')}
          find={geocodeAddress}
          onChoose={choose}
          onError={(text) => setMessage({ kind: 'error', text })}
          testIdPrefix="geofence"
        />
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
        <p className="shape-hint" data-testid="geofence-draw-hint">
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
        <FormError error={coordinatesError} testId="geofence-coordinates-error" />
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
          <p className="shape-muted" data-testid="geofence-points">
            {t('geofences.pointCount', { count: draft.points?.length ?? 0 })}
          </p>
        )}
      </ShapeCard>

      <UnitsCard
        legend={t('geofences.sections.units')}
        hint={t('geofences.unitsHint', { max: perUnitMax })}
        disabled={readOnly}
        error={fieldError('units')}
        units={units.data ?? []}
        selected={draft.units}
        onChange={(unitIds) => set('units', unitIds)}
        testId="geofence-units"
      />

      <ShapeCard legend={t('geofences.sections.options')} disabled={readOnly}>
        <label className="shape-check geofence-check">
          <input type="checkbox" checked={draft.active} onChange={(event) => set('active', event.target.checked)} data-testid="geofence-active" />
          {t('geofences.fields.active')}
        </label>
        <label className="shape-check geofence-check">
          <input type="checkbox" checked={draft.realTime} onChange={(event) => set('realTime', event.target.checked)} data-testid="geofence-realtime" />
          {t('geofences.fields.realTime')}
        </label>
        <label className="shape-check geofence-check">
          <input type="checkbox" checked={draft.theftMode} onChange={(event) => set('theftMode', event.target.checked)} data-testid="geofence-theft" />
          {t('geofences.fields.theftMode')}
        </label>
        <p className="shape-hint">{t('geofences.theftHint')}</p>
      </ShapeCard>

      <ShapeCard legend={t('geofences.sections.schedule')} disabled={readOnly}>
        <p className="shape-hint">{t('geofences.scheduleHint', { zone: zone?.timeZone ?? '' })}</p>
        <ItemList
          items={draft.windows}
          emptyText={t('geofences.noWindows')}
          itemTestId={(index) => `geofence-window-${index}`}
          onChange={(windows) => set('windows', windows)}
          removeText={t('geofences.window.remove')}
          removeLabel={(index) => t('geofences.window.removeNumbered', { number: index + 1 })}
          addText={t('geofences.window.add')}
          onAdd={newWindow}
          addDisabled={readOnly || draft.windows.length >= 14}
          addTestId="geofence-window-add"
        >
          {(window, index) => (
            <>
              <WeekdayChecks legend={t('geofences.window.days')} days={window.days} onChange={(days) => setWindow(window.key, { days })} error={fieldError(`deactivations.${index}.days`)} />
              <div className="geofence-row">
                <SelectField
                  label={t('geofences.window.from')}
                  value={window.from}
                  onChange={(value) => setWindow(window.key, { from: value })}
                  options={START_TIMES}
                  error={fieldError(`deactivations.${index}.from`)}
                  testId={`geofence-window-from-${index}`}
                />
                <SelectField
                  label={t('geofences.window.to')}
                  value={window.to}
                  onChange={(value) => setWindow(window.key, { to: value })}
                  options={END_TIMES}
                  error={fieldError(`deactivations.${index}.to`)}
                  testId={`geofence-window-to-${index}`}
                />
              </div>
            </>
          )}
        </ItemList>
      </ShapeCard>
    </ShapeEditLayout>
  );
}
