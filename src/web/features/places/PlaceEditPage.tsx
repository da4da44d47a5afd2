import { type FormEvent, lazy, Suspense, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import {
  PLACE_ADDRESS_MAX,
  PLACE_CATEGORIES,
  PLACE_LABEL_MAX,
  PLACE_RADIUS_DEFAULT,
  PLACE_RADIUS_MAX,
  PLACE_RADIUS_MIN,
  PLACE_RULE_KINDS,
  type PlaceCategory,
  type PlaceGeocodeCandidate,
  type PlaceInput,
  type PlaceRuleKind,
  type PlaceView,
  timeOf,
  WEEK_DAYS,
} from '../../../modules/places/model';
import type { TripApplyRulesResult } from '../../../modules/trips/model';
import { Banner, Field, SelectField } from '../../components/Form';
import { UnitPicker } from '../../components/UnitPicker';
import { errorText, isApiError } from '../../lib/api';
import { PATHS, placePath } from '../../lib/paths';
import { NotFoundPage } from '../../components/NotFoundPage';
import { geocode, useApplyRules, useGeocoder, usePlace, usePlaces, usePlaceUnits, useSavePlace } from './api';
import './places.css';

const PlaceMap = lazy(() => import('./PlaceMap'));

/** Stockholm (spec §9: the map's default centre) until the user picks a point. */
const DEFAULT_LAT = 59.3293;
const DEFAULT_LON = 18.0686;

interface RuleDraft {
  key: number;
  kind: PlaceRuleKind;
  otherPlaceId: string;
  days: number[];
  from: string;
  to: string;
  category: PlaceCategory;
}

interface Draft {
  label: string;
  address: string;
  latitude: string;
  longitude: string;
  radius: string;
  units: number[];
  rules: RuleDraft[];
}

let ruleKey = 0;
const newRule = (): RuleDraft => ({ key: ++ruleKey, kind: 'end', otherPlaceId: '', days: [1, 2, 3, 4, 5], from: '07:00', to: '09:00', category: 'business' });

function draftOf(place: PlaceView | undefined): Draft {
  if (!place) return { label: '', address: '', latitude: '', longitude: '', radius: String(PLACE_RADIUS_DEFAULT), units: [], rules: [] };
  return {
    label: place.label,
    address: place.address,
    latitude: place.latitude.toFixed(6),
    longitude: place.longitude.toFixed(6),
    radius: String(place.radiusM),
    units: place.units.map((unit) => unit.id),
    rules: place.rules.map((rule) => ({
      key: ++ruleKey,
      kind: rule.kind,
      otherPlaceId: rule.otherPlaceId === null ? '' : String(rule.otherPlaceId),
      days: rule.days,
      from: rule.from,
      to: rule.to,
      category: rule.category,
    })),
  };
}

/** Decimal input with a comma or a dot (spec §5); NaN when it is not a number. */
const decimal = (value: string) => (/^-?\d+([.,]\d+)?$/.test(value.trim()) ? Number(value.trim().replace(',', '.')) : Number.NaN);

/** 00:00 … 23:45 as start times, 00:15 … 24:00 as end times (spec: 15-minute steps). */
const STARTS = Array.from({ length: 96 }, (_, i) => timeOf(i * 15));
const ENDS = Array.from({ length: 96 }, (_, i) => timeOf((i + 1) * 15));

function monthBounds(): { from: string; to: string } {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  const last = new Date(now.getFullYear(), now.getMonth() + 1, 0).getDate();
  const month = `${now.getFullYear()}-${pad(now.getMonth() + 1)}`;
  return { from: `${month}-01`, to: `${month}-${pad(last)}` };
}

/** Spec §2 /user/places/add-edit-places/{placeID}: a new place, or an existing one with its units and rules. */
export function PlaceEditPage() {
  const { t } = useTranslation();
  const { placeID } = useParams();
  const id = placeID === undefined ? null : /^\d+$/.test(placeID) ? Number(placeID) : Number.NaN;
  const place = usePlace(id === null || Number.isNaN(id) ? null : id);
  if (Number.isNaN(id)) return <NotFoundPage />;
  if (id !== null && place.isPending) return <p className="page">{t('common.loading')}</p>;
  if (id !== null && place.isError) {
    if (isApiError(place.error) && place.error.status === 404) return <NotFoundPage />;
    return (
      <div className="page">
        <Banner kind="error">{errorText(place.error)}</Banner>
      </div>
    );
  }
  return <PlaceForm key={id ?? 'new'} id={id} place={place.data} />;
}

function PlaceForm({ id, place }: { id: number | null; place: PlaceView | undefined }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const [draft, setDraft] = useState<Draft>(() => draftOf(place));
  const [fields, setFields] = useState<Record<string, string>>({});
  // A new place's page opens again under its id: the success message comes along in the navigation state.
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(() =>
    (location.state as { saved?: boolean } | null)?.saved ? { kind: 'success', text: t('places.saved') } : null,
  );
  const [candidates, setCandidates] = useState<PlaceGeocodeCandidate[] | null>(null);
  const [lookingUp, setLookingUp] = useState(false);
  const units = usePlaceUnits();
  const geocoder = useGeocoder();
  const others = usePlaces('');
  const save = useSavePlace();
  const readOnly = place !== undefined && !place.editable;
  /** The checks made before saving, by field: the same keys as the server's field errors. */
  const localProblems = (next: Draft): Record<string, string> => {
    const problems: Record<string, string> = {};
    const nextRadius = Number(next.radius);
    if (!Number.isFinite(decimal(next.latitude)) || !Number.isFinite(decimal(next.longitude))) problems.latitude = t('places.errors.coordinates');
    if (!Number.isInteger(nextRadius) || nextRadius < PLACE_RADIUS_MIN || nextRadius > PLACE_RADIUS_MAX) problems.radiusM = t('places.errors.radius');
    if (next.units.length === 0) problems.units = t('places.errors.units');
    if (!next.label.trim()) problems.label = t('places.errors.label');
    return problems;
  };
  /**
   * A field's error goes once the field is changed, unless the check before saving still finds it wrong (then its
   * message stays): an error only ever describes what is in the field now.
   */
  const recheck = (next: Draft, names: string[]) => {
    const problems = localProblems(next);
    setFields((current) => {
      if (!names.some((name) => name in current)) return current;
      const kept = { ...current };
      for (const name of names) {
        if (!(name in kept)) continue;
        if (problems[name]) kept[name] = problems[name]!;
        else delete kept[name];
      }
      return kept;
    });
  };
  /** Which field errors a change of a draft field speaks to. */
  const ERROR_KEYS: Partial<Record<keyof Draft, string[]>> = {
    label: ['label'],
    address: ['address'],
    latitude: ['latitude', 'longitude'],
    longitude: ['latitude', 'longitude'],
    radius: ['radiusM'],
    units: ['units'],
  };
  const set = <K extends keyof Draft>(name: K, value: Draft[K]) => {
    const next = { ...draft, [name]: value };
    setDraft(next);
    recheck(next, name === 'rules' ? Object.keys(fields).filter((key) => key.startsWith('rules')) : (ERROR_KEYS[name] ?? []));
  };
  const setRule = (key: number, change: Partial<RuleDraft>) => {
    const index = draft.rules.findIndex((rule) => rule.key === key);
    const next = { ...draft, rules: draft.rules.map((rule) => (rule.key === key ? { ...rule, ...change } : rule)) };
    setDraft(next);
    const changed = Object.keys(change).flatMap((name) => (name === 'from' || name === 'to' ? ['from', 'to'] : [name]));
    recheck(next, [...changed.map((name) => `rules.${index}.${name}`), `rules.${index}`]);
  };

  const lat = decimal(draft.latitude);
  const lon = decimal(draft.longitude);
  const radius = Number(draft.radius);
  const hasPoint = Number.isFinite(lat) && Number.isFinite(lon);
  const dayNames = useMemo(() => {
    const format = new Intl.DateTimeFormat(i18n.language === 'no' ? 'nb-NO' : i18n.language === 'en' ? 'en-GB' : 'sv-SE', { weekday: 'short' });
    // 4 January 2026 was a Sunday: day id 0.
    return Object.fromEntries([0, 1, 2, 3, 4, 5, 6].map((day) => [day, format.format(new Date(Date.UTC(2026, 0, 4 + day, 12)))]));
  }, [i18n.language]);

  async function lookUp() {
    setLookingUp(true);
    setCandidates(null);
    try {
      const found = await geocode({ q: draft.address });
      setCandidates(found);
      if (found.length === 1) choose(found[0]!);
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    } finally {
      setLookingUp(false);
    }
  }

  function choose(candidate: PlaceGeocodeCandidate) {
    const next = { ...draft, address: candidate.address, latitude: candidate.latitude.toFixed(6), longitude: candidate.longitude.toFixed(6) };
    setDraft(next);
    recheck(next, ['address', 'latitude', 'longitude']);
    setCandidates(null);
  }

  async function pickPoint(latitude: number, longitude: number) {
    const next = { ...draft, latitude: latitude.toFixed(6), longitude: longitude.toFixed(6) };
    setDraft(next);
    recheck(next, ['latitude', 'longitude']);
    try {
      const [found] = await geocode({ lat: latitude, lon: longitude });
      if (found) setDraft((current) => ({ ...current, address: found.address }));
    } catch {
      // The address stays as typed; saving looks it up again when it is empty.
    }
  }

  /** Brings the first field with an error into view once it has rendered. */
  const showFirstError = () =>
    requestAnimationFrame(() => document.querySelector('.place-form .field-error')?.scrollIntoView({ block: 'center' }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setMessage(null);
    setFields({});
    const input: PlaceInput = {
      label: draft.label,
      address: draft.address,
      latitude: Number.isFinite(lat) ? lat : Number.NaN,
      longitude: Number.isFinite(lon) ? lon : Number.NaN,
      radiusM: Number.isFinite(radius) ? radius : Number.NaN,
      units: draft.units,
      rules: draft.rules.map((rule) => ({
        kind: rule.kind,
        otherPlaceId: rule.kind === 'between' && rule.otherPlaceId ? Number(rule.otherPlaceId) : null,
        days: rule.days,
        from: rule.from,
        to: rule.to,
        category: rule.category,
      })),
    };
    const local = localProblems(draft);
    if (Object.keys(local).length > 0) {
      setFields(local);
      showFirstError();
      return;
    }
    try {
      const saved = await save.mutateAsync({ id, input });
      setMessage({ kind: 'success', text: t('places.saved') });
      if (id === null) navigate(placePath(saved.id), { replace: true, state: { saved: true } });
      else setDraft(draftOf(saved));
    } catch (error) {
      if (isApiError(error) && error.status === 422) {
        setFields(Object.fromEntries(Object.entries(error.fields).map(([name, messages]) => [name, messages.join(' ')])));
        showFirstError();
      }
      setMessage({ kind: 'error', text: errorText(error) });
    }
  }

  const otherPlaces = (others.data ?? []).filter((other) => other.id !== id);
  const fieldError = (name: string) => fields[name] ?? null;

  return (
    <div className="page places-page place-edit-page">
      <div className="places-heading">
        <h1 className="page-title">{id === null ? t('places.newTitle') : t('places.editTitle', { label: place?.label ?? '' })}</h1>
        <Link className="btn btn-secondary" to={PATHS.places}>
          {t('places.backToList')}
        </Link>
      </div>
      {readOnly && <Banner kind="info">{t('places.readOnlyHint')}</Banner>}
      {message && (
        <Banner kind={message.kind} onClose={() => setMessage(null)} closeLabel={t('places.closeMessage')}>
          <span data-testid="place-message">{message.text}</span>
        </Banner>
      )}
      <form className="place-form" onSubmit={submit} noValidate aria-label={t('places.formLabel')}>
        <fieldset className="place-card" disabled={readOnly}>
          <legend>{t('places.sections.place')}</legend>
          <Field label={t('places.fields.label')} value={draft.label} onChange={(value) => set('label', value)} isRequired maxLength={PLACE_LABEL_MAX} error={fieldError('label')} testId="place-label" />
          <div className="place-address-row">
            <Field
              label={t('places.fields.address')}
              value={draft.address}
              onChange={(value) => set('address', value)}
              maxLength={PLACE_ADDRESS_MAX}
              error={fieldError('address')}
              description={t('places.addressHint', { max: PLACE_ADDRESS_MAX })}
              testId="place-address"
            />
            <Button className="btn btn-secondary" onPress={lookUp} isDisabled={readOnly || draft.address.trim().length < 2 || lookingUp} data-testid="place-lookup">
              {lookingUp ? t('common.loading') : t('places.lookUp')}
            </Button>
          </div>
          {geocoder.data?.precision === 'town' && (
            <p className="places-hint place-town-level" data-testid="place-town-level">
              {t('places.townLevel')}
            </p>
          )}
          {candidates !== null && (
            <section className="place-candidates" aria-live="polite" aria-label={t('places.candidates')}>
              {candidates.length === 0 ? (
                <p>{t('places.noCandidates')}</p>
              ) : (
                <ul>
                  {candidates.map((candidate) => (
                    <li key={`${candidate.latitude},${candidate.longitude}`}>
                      <Button className="btn-link" onPress={() => choose(candidate)}>
                        {candidate.address} ({candidate.latitude.toFixed(4)}, {candidate.longitude.toFixed(4)})
                      </Button>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          )}
          <div className="place-coordinates">
            <Field label={t('places.fields.latitude')} value={draft.latitude} onChange={(value) => set('latitude', value)} inputMode="decimal" error={fieldError('latitude')} testId="place-latitude" />
            <Field label={t('places.fields.longitude')} value={draft.longitude} onChange={(value) => set('longitude', value)} inputMode="decimal" error={fieldError('longitude')} testId="place-longitude" />
            <Field
              label={t('places.fields.radiusM')}
              value={draft.radius}
              onChange={(value) => set('radius', value)}
              inputMode="numeric"
              error={fieldError('radiusM')}
              description={t('places.radiusHint', { min: PLACE_RADIUS_MIN, max: PLACE_RADIUS_MAX })}
              testId="place-radius"
            />
          </div>
          <p className="places-hint">{t('places.mapHint')}</p>
          <Suspense fallback={<div className="place-map place-map--loading">{t('common.loading')}</div>}>
            <PlaceMap
              latitude={hasPoint ? lat : DEFAULT_LAT}
              longitude={hasPoint ? lon : DEFAULT_LON}
              radiusM={Number.isFinite(radius) && radius > 0 ? Math.min(radius, PLACE_RADIUS_MAX) : PLACE_RADIUS_DEFAULT}
              hasPoint={hasPoint}
              readOnly={readOnly}
              label={t('places.mapLabel')}
              onPick={pickPoint}
            />
          </Suspense>
        </fieldset>

        <fieldset className="place-card" disabled={readOnly}>
          <legend>{t('places.sections.units')}</legend>
          <p className="places-hint">{t('places.unitsHint')}</p>
          {fieldError('units') && (
            <p className="field-error" role="alert">
              {fieldError('units')}
            </p>
          )}
          <UnitPicker
            presentation="inline"
            selectionMode="multiple"
            units={units.data ?? []}
            selected={draft.units}
            onChange={(unitIds) => set('units', unitIds)}
            testId="place-units"
          />
        </fieldset>

        <fieldset className="place-card" disabled={readOnly}>
          <legend>{t('places.sections.rules')}</legend>
          <p className="places-hint">{t('places.rulesHint')}</p>
          {draft.rules.length === 0 && <p className="places-muted">{t('places.noRules')}</p>}
          <ol className="place-rules">
            {draft.rules.map((rule, index) => (
              <li key={rule.key} className="place-rule" data-testid={`place-rule-${index}`}>
                <div className="place-rule-row">
                  <SelectField
                    label={t('places.rule.kind')}
                    value={rule.kind}
                    onChange={(value) => setRule(rule.key, { kind: value as PlaceRuleKind })}
                    options={PLACE_RULE_KINDS.map((kind) => ({ value: kind, label: t(`places.kinds.${kind}`) }))}
                    error={fieldError(`rules.${index}.kind`)}
                    testId={`rule-kind-${index}`}
                  />
                  {rule.kind === 'between' && (
                    <SelectField
                      label={t('places.rule.otherPlace')}
                      value={rule.otherPlaceId}
                      onChange={(value) => setRule(rule.key, { otherPlaceId: value })}
                      options={[{ value: '', label: t('places.rule.choosePlace') }, ...otherPlaces.map((other) => ({ value: String(other.id), label: other.label }))]}
                      error={fieldError(`rules.${index}.otherPlaceId`)}
                      testId={`rule-other-${index}`}
                    />
                  )}
                  <SelectField
                    label={t('places.rule.from')}
                    value={rule.from}
                    onChange={(value) => setRule(rule.key, { from: value })}
                    options={STARTS.map((time) => ({ value: time, label: time }))}
                    error={fieldError(`rules.${index}.from`)}
                    testId={`rule-from-${index}`}
                  />
                  <SelectField
                    label={t('places.rule.to')}
                    value={rule.to}
                    onChange={(value) => setRule(rule.key, { to: value })}
                    options={ENDS.map((time) => ({ value: time, label: time }))}
                    error={fieldError(`rules.${index}.to`)}
                    testId={`rule-to-${index}`}
                  />
                  <SelectField
                    label={t('places.rule.category')}
                    value={rule.category}
                    onChange={(value) => setRule(rule.key, { category: value as PlaceCategory })}
                    options={PLACE_CATEGORIES.map((category) => ({ value: category, label: t(`places.categories.${category}`) }))}
                    testId={`rule-category-${index}`}
                  />
                </div>
                <fieldset className="place-days">
                  <legend>{t('places.rule.days')}</legend>
                  {WEEK_DAYS.map((day) => (
                    <label key={day} className="place-check place-day">
                      <input
                        type="checkbox"
                        checked={rule.days.includes(day)}
                        onChange={(event) =>
                          setRule(rule.key, { days: event.target.checked ? [...rule.days, day] : rule.days.filter((other) => other !== day) })
                        }
                      />
                      {dayNames[day]}
                    </label>
                  ))}
                  {fieldError(`rules.${index}.days`) && <p className="field-error">{fieldError(`rules.${index}.days`)}</p>}
                </fieldset>
                <Button
                  className="btn btn-secondary btn-small"
                  onPress={() => set('rules', draft.rules.filter((other) => other.key !== rule.key))}
                  aria-label={t('places.rule.removeNumbered', { number: index + 1 })}
                >
                  {t('places.rule.remove')}
                </Button>
              </li>
            ))}
          </ol>
          <Button className="btn btn-secondary" onPress={() => set('rules', [...draft.rules, newRule()])} isDisabled={readOnly} data-testid="rule-add">
            {t('places.rule.add')}
          </Button>
        </fieldset>

        {!readOnly && (
          <div className="place-actions">
            <Button type="submit" className="btn btn-primary" isDisabled={save.isPending} data-testid="place-save">
              {save.isPending ? t('common.loading') : t('common.save')}
            </Button>
            <Link className="btn btn-secondary" to={PATHS.places}>
              {t('common.cancel')}
            </Link>
          </div>
        )}
      </form>
      {place && place.units.length > 0 && <ApplyRules place={place} />}
    </div>
  );
}

/** Applies the place rules to one of its units' trips of a period (not attested ones, not ones a person typed). */
function ApplyRules({ place }: { place: PlaceView }) {
  const { t } = useTranslation();
  const month = monthBounds();
  const [unitId, setUnitId] = useState(String(place.units[0]?.id ?? ''));
  const [from, setFrom] = useState(month.from);
  const [to, setTo] = useState(month.to);
  const [result, setResult] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const apply = useApplyRules();
  /** A changed choice clears the result of the previous run. */
  const choose = (setter: (value: string) => void) => (value: string) => {
    setter(value);
    setResult(null);
  };

  async function run() {
    try {
      const outcome: TripApplyRulesResult = await apply.mutateAsync({ unitId: Number(unitId), from, to });
      setResult({ kind: 'success', text: t('places.apply.result', { count: outcome.changed, checked: outcome.checked, categorized: outcome.categorized }) });
    } catch (error) {
      setResult({ kind: 'error', text: errorText(error) });
    }
  }

  return (
    <section className="place-card place-apply" aria-labelledby="place-apply-title">
      <h2 id="place-apply-title">{t('places.apply.title')}</h2>
      <p className="places-hint">{t('places.apply.hint')}</p>
      <div className="place-rule-row">
        <SelectField
          label={t('places.apply.unit')}
          value={unitId}
          onChange={choose(setUnitId)}
          options={place.units.map((unit) => ({ value: String(unit.id), label: unit.name }))}
          testId="apply-unit"
        />
        <label className="field">
          <span className="field-label">{t('places.apply.from')}</span>
          <input className="field-input" type="date" value={from} onChange={(event) => choose(setFrom)(event.target.value)} data-testid="apply-from" />
        </label>
        <label className="field">
          <span className="field-label">{t('places.apply.to')}</span>
          <input className="field-input" type="date" value={to} onChange={(event) => choose(setTo)(event.target.value)} data-testid="apply-to" />
        </label>
      </div>
      <Button className="btn btn-primary" onPress={run} isDisabled={apply.isPending || !unitId || !from || !to} data-testid="apply-rules">
        {apply.isPending ? t('common.loading') : t('places.apply.action')}
      </Button>
      {result && (
        <p className={result.kind === 'error' ? 'field-error' : 'places-result'} role="status" data-testid="apply-result">
          {result.text}
        </p>
      )}
    </section>
  );
}
