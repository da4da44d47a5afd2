import { type FormEvent, lazy, Suspense, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
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
} from '../../../modules/places/model';
import type { TripApplyRulesResult } from '../../../modules/trips/model';
import { Field, SelectField } from '../../components/Form';
import { AddressLookup, decimalInput, END_TIMES, ItemList, RecordEditPage, ShapeCard, ShapeEditLayout, START_TIMES, UnitsCard, useShapeForm, WeekdayChecks } from '../../components/ShapeEditor';
import { errorText } from '../../lib/api';
import { PATHS, placePath } from '../../lib/paths';
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

function monthBounds(): { from: string; to: string } {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  const last = new Date(now.getFullYear(), now.getMonth() + 1, 0).getDate();
  const month = `${now.getFullYear()}-${pad(now.getMonth() + 1)}`;
  return { from: `${month}-01`, to: `${month}-${pad(last)}` };
}

/** Spec §2 /user/places/add-edit-places/{placeID}: a new place, or an existing one with its units and rules. */
export function PlaceEditPage() {
  return <RecordEditPage param="placeID" useRecord={usePlace} form={(id, place) => <PlaceForm id={id} place={place} />} />;
}

function PlaceForm({ id, place }: { id: number | null; place: PlaceView | undefined }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<Draft>(() => draftOf(place));
  const form = useShapeForm(t('places.saved'));
  const { fields, setFields, fieldError, setMessage, saveChecked } = form;
  const units = usePlaceUnits();
  const geocoder = useGeocoder();
  const others = usePlaces('');
  const save = useSavePlace();
  const readOnly = place !== undefined && !place.editable;
  /** The checks made before saving, by field: the same keys as the server's field errors. */
  const localProblems = (next: Draft): Record<string, string> => {
    const problems: Record<string, string> = {};
    const nextRadius = Number(next.radius);
    if (!Number.isFinite(decimalInput(next.latitude)) || !Number.isFinite(decimalInput(next.longitude))) problems.latitude = t('places.errors.coordinates');
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

  const lat = decimalInput(draft.latitude);
  const lon = decimalInput(draft.longitude);
  const radius = Number(draft.radius);
  const hasPoint = Number.isFinite(lat) && Number.isFinite(lon);

  function choose(candidate: PlaceGeocodeCandidate) {
    const next = { ...draft, address: candidate.address, latitude: candidate.latitude.toFixed(6), longitude: candidate.longitude.toFixed(6) };
    setDraft(next);
    recheck(next, ['address', 'latitude', 'longitude']);
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

  async function submit(event: FormEvent) {
    event.preventDefault();
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
    await saveChecked({
      local: localProblems(draft),
      save: () => save.mutateAsync({ id, input }),
      pathOfNew: id === null ? placePath : null,
      onSaved: (saved) => setDraft(draftOf(saved)),
      fieldStatuses: [422],
    });
  }

  const otherPlaces = (others.data ?? []).filter((other) => other.id !== id);

  return (
    <ShapeEditLayout
      namespace="places"
      testIdPrefix="place"
      className="places-page place-edit-page"
      title={id === null ? t('places.newTitle') : t('places.editTitle', { label: place?.label ?? '' })}
      backTo={PATHS.places}
      readOnly={readOnly}
      form={form}
      onSubmit={submit}
      saving={save.isPending}
      after={place && place.units.length > 0 && <ApplyRules place={place} />}
    >
      <ShapeCard legend={t('places.sections.place')} disabled={readOnly}>
        <Field label={t('places.fields.label')} value={draft.label} onChange={(value) => set('label', value)} isRequired maxLength={PLACE_LABEL_MAX} error={fieldError('label')} testId="place-label" />
        <AddressLookup
          label={t('places.fields.address')}
          value={draft.address}
          onChange={(value) => set('address', value)}
          maxLength={PLACE_ADDRESS_MAX}
          error={fieldError('address')}
          description={t('places.addressHint', { max: PLACE_ADDRESS_MAX })}
          readOnly={readOnly}
          lookUpLabel={t('places.lookUp')}
          candidatesLabel={t('places.candidates')}
          noCandidates={t('places.noCandidates')}
          find={(address) => geocode({ q: address })}
          onChoose={choose}
          onError={(text) => setMessage({ kind: 'error', text })}
          candidateText={(candidate) => `${candidate.address} (${candidate.latitude.toFixed(4)}, ${candidate.longitude.toFixed(4)})`}
          testIdPrefix="place"
          note={
            geocoder.data?.precision === 'town' && (
              <p className="shape-hint place-town-level" data-testid="place-town-level">
                {t('places.townLevel')}
              </p>
            )
          }
        />
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
        <p className="shape-hint">{t('places.mapHint')}</p>
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
      </ShapeCard>

      <UnitsCard
        legend={t('places.sections.units')}
        hint={t('places.unitsHint')}
        disabled={readOnly}
        error={fieldError('units')}
        units={units.data ?? []}
        selected={draft.units}
        onChange={(unitIds) => set('units', unitIds)}
        testId="place-units"
      />

      <ShapeCard legend={t('places.sections.rules')} disabled={readOnly}>
        <p className="shape-hint">{t('places.rulesHint')}</p>
        <ItemList
          items={draft.rules}
          emptyText={t('places.noRules')}
          itemTestId={(index) => `place-rule-${index}`}
          onChange={(rules) => set('rules', rules)}
          removeText={t('places.rule.remove')}
          removeLabel={(index) => t('places.rule.removeNumbered', { number: index + 1 })}
          addText={t('places.rule.add')}
          onAdd={newRule}
          addDisabled={readOnly}
          addTestId="rule-add"
        >
          {(rule, index) => (
            <>
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
                  options={START_TIMES}
                  error={fieldError(`rules.${index}.from`)}
                  testId={`rule-from-${index}`}
                />
                <SelectField
                  label={t('places.rule.to')}
                  value={rule.to}
                  onChange={(value) => setRule(rule.key, { to: value })}
                  options={END_TIMES}
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
              <WeekdayChecks legend={t('places.rule.days')} days={rule.days} onChange={(days) => setRule(rule.key, { days })} error={fieldError(`rules.${index}.days`)} />
            </>
          )}
        </ItemList>
      </ShapeCard>
    </ShapeEditLayout>
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
    <section className="shape-card place-apply" aria-labelledby="place-apply-title">
      <h2 id="place-apply-title">{t('places.apply.title')}</h2>
      <p className="shape-hint">{t('places.apply.hint')}</p>
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
