import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { ComboBox, FieldError, Input, Label, ListBox, ListBoxItem, Popover, Text } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { PlaceGeocodeCandidate } from '../../../modules/places/model';
import { ADDRESS_MAX, HOME_RADIUS_DEFAULT, HOME_RADIUS_MIN, type SafeHomeRecord, setGeofenceSchema } from '../../../modules/safe-home/model';
import { AppDialog, DialogForm } from '../../components/Dialogs';
import { Field } from '../../components/Form';
import { DEFAULT_CENTER, DEFAULT_ZOOM, FOCUS_ZOOM } from '../../components/map/basemap';
import { errorText, isApiError } from '../../lib/api';
import { check } from '../../lib/validation';
import { fetchLatestPosition, geocode, useSetGeofence } from './api';

const HomeMap = lazy(() => import('./HomeMap'));

/** The geocoder's failure text (spec §8: "An error occurred while fetching location."). */
const GEOCODE_FAILED = 'safeHome.GeocodeFailed';
/** Typed characters before the address is looked up, and the pause after the last one. */
const SEARCH_MIN = 3;
const SEARCH_DELAY_MS = 300;

interface Centre {
  latitude: number;
  longitude: number;
  zoom: number;
  /** The vehicle's latest position: a new home starts there, with that place's address. */
  fromVehicle?: boolean;
}

/**
 * Where the map opens (spec §9): the saved home at the edit zoom; for a new home the vehicle's latest position, or the
 * fixed Stockholm centre when it has none, at the default zoom.
 */
function useStartCentre(record: SafeHomeRecord): { centre: Centre | null; failed: boolean } {
  const saved = record.centerLat !== null && record.centerLng !== null;
  const [state, setState] = useState<{ centre: Centre | null; failed: boolean }>(() =>
    saved ? { centre: { latitude: record.centerLat!, longitude: record.centerLng!, zoom: FOCUS_ZOOM }, failed: false } : { centre: null, failed: false },
  );
  useEffect(() => {
    if (saved) return;
    let live = true;
    const fallback = { latitude: DEFAULT_CENTER[1], longitude: DEFAULT_CENTER[0], zoom: DEFAULT_ZOOM };
    fetchLatestPosition(record.imei).then(
      (position) => {
        if (!live) return;
        const known = position.Latitude !== null && position.Longitude !== null;
        setState({
          centre: known ? { latitude: position.Latitude!, longitude: position.Longitude!, zoom: DEFAULT_ZOOM, fromVehicle: true } : fallback,
          failed: false,
        });
      },
      () => live && setState({ centre: fallback, failed: true }),
    );
    return () => {
      live = false;
    };
  }, [record.imei, saved]);
  return state;
}

/**
 * The map modal (spec §2): the home as a draggable circle on the map, its radius in metres (at least 300, spec §5),
 * the address with suggestions from the geocoder as it is typed, Save and Cancel. Choosing a suggestion moves the
 * circle there; dragging the circle (or clicking the map) moves the home and looks up its address.
 */
export function HomeDialog({ record, onClose }: { record: SafeHomeRecord; onClose: (message?: string) => void }) {
  const { t } = useTranslation();
  const start = useStartCentre(record);
  return (
    <AppDialog isOpen onOpenChange={(open) => !open && onClose()} title={t('safeReturnHome.home.title', { name: record.name })} className="safe-home-modal">
      {start.centre ? (
        <HomeForm record={record} start={start.centre} startFailed={start.failed} onClose={onClose} />
      ) : (
        <p className="dialog-body" data-testid="safe-home-map-loading">
          {t('common.loading')}
        </p>
      )}
    </AppDialog>
  );
}

function HomeForm({ record, start, startFailed, onClose }: { record: SafeHomeRecord; start: Centre; startFailed: boolean; onClose: (message?: string) => void }) {
  const { t } = useTranslation();
  const save = useSetGeofence();
  const [centre, setCentre] = useState({ latitude: start.latitude, longitude: start.longitude });
  const [follow, setFollow] = useState(0);
  const [radius, setRadius] = useState(String(record.address ? record.radius : HOME_RADIUS_DEFAULT));
  const [radiusTouched, setRadiusTouched] = useState(false);
  const [address, setAddress] = useState(record.address ?? '');
  const [query, setQuery] = useState('');
  const [candidates, setCandidates] = useState<PlaceGeocodeCandidate[]>([]);
  const [searching, setSearching] = useState(false);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(startFailed ? t(GEOCODE_FAILED) : null);
  const reverse = useRef<AbortController | null>(null);

  // Suggestions for what was typed, once the typing pauses.
  useEffect(() => {
    const text = query.trim();
    if (text.length < SEARCH_MIN) {
      setCandidates([]);
      return;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => {
      setSearching(true);
      geocode({ q: text }, abort.signal).then(
        (found) => {
          setCandidates(found);
          setSearching(false);
        },
        (error) => {
          if (abort.signal.aborted) return;
          setSearching(false);
          setCandidates([]);
          setFailure(isApiError(error) && error.code === 'ERR_NETWORK' ? error.message : t(GEOCODE_FAILED));
        },
      );
    }, SEARCH_DELAY_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [query, t]);

  useEffect(() => () => reverse.current?.abort(), []);

  // A new home at the vehicle's position starts with that place's address.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the form opens
  useEffect(() => {
    if (start.fromVehicle && !record.address) moved(start.latitude, start.longitude);
  }, []);

  const radiusNumber = Number(radius.trim().replace(',', '.'));
  const radiusCheck = check(setGeofenceSchema.shape.radius, radius.trim() === '' ? Number.NaN : radiusNumber);
  const radiusError = fields.radius ?? (radiusTouched && !radiusCheck.ok ? radiusCheck.errors.form : null) ?? null;
  // What the map draws while the radius is being typed: the typed size when it is one.
  const drawnRadius = Number.isFinite(radiusNumber) && radiusNumber > 0 ? Math.min(radiusNumber, 20_000) : HOME_RADIUS_DEFAULT;

  function choose(candidate: PlaceGeocodeCandidate) {
    setAddress(candidate.address);
    setQuery('');
    setCandidates([]);
    setCentre({ latitude: candidate.latitude, longitude: candidate.longitude });
    setFollow((count) => count + 1);
    setFields(({ address: _gone, ...rest }) => rest);
  }

  /** The home moved on the map: its address is looked up (the typed one stays when there is none). */
  function moved(latitude: number, longitude: number) {
    reverse.current?.abort();
    const abort = new AbortController();
    reverse.current = abort;
    geocode({ lat: latitude, lon: longitude }, abort.signal).then(
      ([found]) => {
        if (found && !abort.signal.aborted) setAddress(found.address);
      },
      () => {
        if (!abort.signal.aborted) setFailure(t(GEOCODE_FAILED));
      },
    );
  }

  async function submit() {
    setFailure(null);
    const input = { imei: record.imei, radius: radius.trim() === '' ? Number.NaN : radiusNumber, centerLng: centre.longitude, centerLat: centre.latitude, address };
    const parsed = check(setGeofenceSchema, input);
    if (!parsed.ok) {
      setRadiusTouched(true);
      setFields(parsed.errors);
      return;
    }
    setFields({});
    try {
      const saved = await save.mutateAsync(parsed.data);
      onClose(saved.message);
    } catch (error) {
      if (isApiError(error) && error.status === 422) {
        setFields(error.fieldTexts);
      }
      setFailure(errorText(error));
    }
  }

  return (
    <DialogForm
      className="safe-home-form"
      onSubmit={() => void submit()}
      failure={failure}
      onDismissFailure={() => setFailure(null)}
      onCancel={() => onClose()}
      saving={save.isPending}
      testIdPrefix="safe-home-home"
    >
      <div className="safe-home-form-fields">
        <ComboBox
          className="field safe-home-address-field"
          allowsCustomValue
          allowsEmptyCollection
          menuTrigger="input"
          inputValue={address}
          onInputChange={(value) => {
            setAddress(value);
            setQuery(value);
          }}
          items={candidates.map((candidate, index) => ({ id: String(index), candidate }))}
          onSelectionChange={(key) => {
            const picked = key === null ? undefined : candidates[Number(key)];
            if (picked) choose(picked);
          }}
          isInvalid={Boolean(fields.address)}
          validationBehavior="aria"
        >
          <Label className="field-label">{t('safeReturnHome.home.address')}</Label>
          <Input className="field-input" maxLength={ADDRESS_MAX} data-testid="safe-home-address" />
          <Text slot="description" className="field-description">
            {searching ? t('safeReturnHome.home.searching') : t('safeReturnHome.home.addressHint', { min: SEARCH_MIN })}
          </Text>
          <FieldError className="field-error">{fields.address}</FieldError>
          <Popover className="safe-home-popover" placement="bottom start">
            <ListBox className="safe-home-listbox" renderEmptyState={() => <p className="safe-home-muted">{t('safeReturnHome.home.noCandidates')}</p>}>
              {(item: { id: string; candidate: PlaceGeocodeCandidate }) => (
                <ListBoxItem id={item.id} textValue={item.candidate.address} className="safe-home-option">
                  {item.candidate.address}
                </ListBoxItem>
              )}
            </ListBox>
          </Popover>
        </ComboBox>
        <Field
          label={t('safeReturnHome.home.radius')}
          value={radius}
          onChange={(value) => {
            setRadius(value);
            setRadiusTouched(true);
            setFields(({ radius: _gone, ...rest }) => rest);
          }}
          inputMode="numeric"
          isRequired
          error={radiusError}
          description={t('safeReturnHome.home.radiusHint', { min: HOME_RADIUS_MIN })}
          className="safe-home-radius"
          testId="safe-home-radius"
        />
      </div>
      <p className="safe-home-hint">{t('safeReturnHome.home.mapHint')}</p>
      <Suspense fallback={<div className="safe-home-map safe-home-map--loading">{t('common.loading')}</div>}>
        <HomeMap
          latitude={centre.latitude}
          longitude={centre.longitude}
          radiusM={drawnRadius}
          zoom={start.zoom}
          follow={follow}
          label={t('safeReturnHome.home.mapLabel')}
          onMove={(latitude, longitude) => setCentre({ latitude, longitude })}
          onMoved={moved}
        />
      </Suspense>
      <p className="safe-home-muted safe-home-centre" data-testid="safe-home-centre">
        {t('safeReturnHome.home.centre', { latitude: centre.latitude.toFixed(6), longitude: centre.longitude.toFixed(6) })}
      </p>
    </DialogForm>
  );
}
