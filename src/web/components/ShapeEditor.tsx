import { type FormEvent, Fragment, type ReactNode, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import type { PlaceGeocodeCandidate } from '../../modules/places/model';
import { errorText, isApiError } from '../lib/api';
import { useWeekdayNames } from '../lib/weekdays';
import { Banner, Field, FormError, type SelectOption } from './Form';
import { NotFoundPage } from './NotFoundPage';
import { type PickerUnit, UnitPicker } from './UnitPicker';
import './shape-editor.css';

/**
 * The pieces of a "shape on the map" edit page (a geofence zone, a place): the page that loads the record of the
 * address's id, the heading with its messages, the form's cards, the address look-up, the units, repeated time
 * windows with their weekdays, and the save and cancel actions. The map and the fields of each kind stay with it.
 */

/** Decimal input with a comma or a dot (spec §5); NaN when it is not a number. */
export const decimalInput = (value: string) => (/^-?\d+([.,]\d+)?$/.test(value.trim()) ? Number(value.trim().replace(',', '.')) : Number.NaN);

const clock = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
/** 00:00 … 23:45 as start times, 00:15 … 24:00 as end times (15-minute steps). */
export const START_TIMES: SelectOption[] = Array.from({ length: 96 }, (_, i) => clock(i * 15)).map((time) => ({ value: time, label: time }));
export const END_TIMES: SelectOption[] = Array.from({ length: 96 }, (_, i) => clock((i + 1) * 15)).map((time) => ({ value: time, label: time }));
/** Monday first, as the week reads in the three markets (day ids: 0 is Sunday). */
export const WEEK = [1, 2, 3, 4, 5, 6, 0] as const;

interface RecordQuery<T> {
  data: T | undefined;
  isPending: boolean;
  isError: boolean;
  error: unknown;
}

/**
 * The record named by the address's `param` (none: a new one): a malformed or unknown id is the not-found page, a
 * failed load its message; otherwise the form, keyed by the id so that another record starts afresh.
 */
export function RecordEditPage<T>({ param, useRecord, form }: { param: string; useRecord: (id: number | null) => RecordQuery<T>; form: (id: number | null, record: T | undefined) => ReactNode }) {
  const { t } = useTranslation();
  const value = useParams()[param];
  const id = value === undefined ? null : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  const record = useRecord(id === null || Number.isNaN(id) ? null : id);
  if (Number.isNaN(id)) return <NotFoundPage />;
  if (id !== null && record.isPending) return <p className="page">{t('common.loading')}</p>;
  if (id !== null && record.isError) {
    if (isApiError(record.error) && record.error.status === 404) return <NotFoundPage />;
    return (
      <div className="page">
        <Banner kind="error">{errorText(record.error)}</Banner>
      </div>
    );
  }
  return <Fragment key={id ?? 'new'}>{form(id, record.data)}</Fragment>;
}

export type FormMessage = { kind: 'error' | 'success'; text: string };

/** Brings the first field with an error into view once it has rendered. */
const showFirstError = () => requestAnimationFrame(() => document.querySelector('.shape-form .field-error')?.scrollIntoView({ block: 'center' }));

/**
 * The form's field errors and message, and its saving: the checks made here first, then the server's (their field
 * errors under the fields, the first brought into view). A new record's page opens again under its id and its saved
 * message comes along in the navigation state.
 */
export function useShapeForm(savedText: string) {
  const navigate = useNavigate();
  const location = useLocation();
  const [fields, setFields] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<FormMessage | null>(() => ((location.state as { saved?: boolean } | null)?.saved ? { kind: 'success', text: savedText } : null));
  const fieldError = (name: string) => fields[name] ?? null;

  async function saveChecked<Saved extends { id: number }>(options: {
    local: Record<string, string>;
    save: () => Promise<Saved>;
    /** A new record's page, to open under its id. */
    pathOfNew: ((id: number) => string) | null;
    onSaved: (saved: Saved) => void;
    /** The failures whose field errors are shown under the fields. */
    fieldStatuses: number[];
  }) {
    setMessage(null);
    setFields({});
    if (Object.keys(options.local).length > 0) {
      setFields(options.local);
      showFirstError();
      return;
    }
    try {
      const saved = await options.save();
      setMessage({ kind: 'success', text: savedText });
      if (options.pathOfNew) navigate(options.pathOfNew(saved.id), { replace: true, state: { saved: true } });
      else options.onSaved(saved);
    } catch (error) {
      if (isApiError(error) && options.fieldStatuses.includes(error.status)) {
        setFields(error.fieldTexts);
        showFirstError();
      }
      setMessage({ kind: 'error', text: errorText(error) });
    }
  }

  return { fields, setFields, fieldError, message, setMessage, saveChecked };
}

/**
 * The edit page: its heading and back link, its messages, the form of cards and its actions, and what follows the form.
 * Its words are the `namespace`'s keys `backToList`, `readOnlyHint`, `closeMessage` and `formLabel`; its test ids
 * `<testIdPrefix>-message` and `-save`.
 */
export function ShapeEditLayout(props: {
  namespace: 'geofences' | 'places';
  testIdPrefix: string;
  className: string;
  title: string;
  backTo: string;
  readOnly: boolean;
  form: Pick<ReturnType<typeof useShapeForm>, 'message' | 'setMessage'>;
  onSubmit: (event: FormEvent) => void;
  saving: boolean;
  children: ReactNode;
  after?: ReactNode;
}) {
  const { t } = useTranslation();
  const { message, setMessage } = props.form;
  return (
    <div className={`page ${props.className}`}>
      <div className="page-heading">
        <h1 className="page-title">{props.title}</h1>
        <Link className="btn btn-secondary" to={props.backTo}>
          {t(`${props.namespace}.backToList`)}
        </Link>
      </div>
      {props.readOnly && <Banner kind="info">{t(`${props.namespace}.readOnlyHint`)}</Banner>}
      {message && (
        <Banner kind={message.kind} onClose={() => setMessage(null)} closeLabel={t(`${props.namespace}.closeMessage`)}>
          <span data-testid={`${props.testIdPrefix}-message`}>{message.text}</span>
        </Banner>
      )}
      <form className="shape-form" onSubmit={props.onSubmit} noValidate aria-label={t(`${props.namespace}.formLabel`)}>
        {props.children}
        {!props.readOnly && (
          <div className="shape-actions">
            <Button type="submit" className="btn btn-primary" isDisabled={props.saving} data-testid={`${props.testIdPrefix}-save`}>
              {props.saving ? t('common.loading') : t('common.save')}
            </Button>
            <Link className="btn btn-secondary" to={props.backTo}>
              {t('common.cancel')}
            </Link>
          </div>
        )}
      </form>
      {props.after}
    </div>
  );
}

/** One card of the form; a read-only record's cards are disabled. */
export function ShapeCard({ legend, disabled, children }: { legend: string; disabled: boolean; children: ReactNode }) {
  return (
    <fieldset className="shape-card" disabled={disabled}>
      <legend>{legend}</legend>
      {children}
    </fieldset>
  );
}

/** The address field with its look-up button and the candidates found; choosing one hands it to the page. */
export function AddressLookup(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  description: string;
  maxLength?: number;
  error?: string | null;
  readOnly: boolean;
  lookUpLabel: string;
  candidatesLabel: string;
  noCandidates: string;
  /** Looks the address up; an error is the page's message. */
  find: (address: string) => Promise<PlaceGeocodeCandidate[]>;
  onChoose: (candidate: PlaceGeocodeCandidate) => void;
  onError: (text: string) => void;
  candidateText?: (candidate: PlaceGeocodeCandidate) => ReactNode;
  testIdPrefix: string;
  /** Shown between the field and the candidates. */
  note?: ReactNode;
}) {
  const { t } = useTranslation();
  const [candidates, setCandidates] = useState<PlaceGeocodeCandidate[] | null>(null);
  const [lookingUp, setLookingUp] = useState(false);

  function choose(candidate: PlaceGeocodeCandidate) {
    props.onChoose(candidate);
    setCandidates(null);
  }

  async function lookUp() {
    setLookingUp(true);
    setCandidates(null);
    try {
      const found = await props.find(props.value);
      setCandidates(found);
      if (found.length === 1) choose(found[0]!);
    } catch (error) {
      props.onError(errorText(error));
    } finally {
      setLookingUp(false);
    }
  }

  return (
    <>
      <div className="shape-address-row">
        <Field
          label={props.label}
          value={props.value}
          onChange={props.onChange}
          maxLength={props.maxLength}
          error={props.error}
          description={props.description}
          testId={`${props.testIdPrefix}-address`}
        />
        <Button className="btn btn-secondary" onPress={lookUp} isDisabled={props.readOnly || props.value.trim().length < 2 || lookingUp} data-testid={`${props.testIdPrefix}-lookup`}>
          {lookingUp ? t('common.loading') : props.lookUpLabel}
        </Button>
      </div>
      {props.note}
      {candidates !== null && (
        <section className="shape-candidates" aria-live="polite" aria-label={props.candidatesLabel}>
          {candidates.length === 0 ? (
            <p>{props.noCandidates}</p>
          ) : (
            <ul>
              {candidates.map((candidate) => (
                <li key={`${candidate.latitude},${candidate.longitude}`}>
                  <Button className="btn-link" onPress={() => choose(candidate)}>
                    {props.candidateText ? props.candidateText(candidate) : candidate.address}
                  </Button>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </>
  );
}

/** The card of the units the record applies to. */
export function UnitsCard(props: { legend: string; hint: string; disabled: boolean; error: string | null; units: PickerUnit[]; selected: number[]; onChange: (unitIds: number[]) => void; testId: string }) {
  return (
    <ShapeCard legend={props.legend} disabled={props.disabled}>
      <p className="shape-hint">{props.hint}</p>
      <FormError error={props.error} />
      <UnitPicker presentation="inline" selectionMode="multiple" units={props.units} selected={props.selected} onChange={props.onChange} testId={props.testId} />
    </ShapeCard>
  );
}

/**
 * A numbered list of like items (time windows, rules): each with its fields and a remove button, an add button under
 * them and a line while there are none.
 */
export function ItemList<Item extends { key: number }>(props: {
  items: Item[];
  emptyText: string;
  itemTestId: (index: number) => string;
  children: (item: Item, index: number) => ReactNode;
  onChange: (items: Item[]) => void;
  removeText: string;
  removeLabel: (index: number) => string;
  addText: string;
  onAdd: () => Item;
  addDisabled: boolean;
  addTestId: string;
}) {
  return (
    <>
      {props.items.length === 0 && <p className="shape-muted">{props.emptyText}</p>}
      <ol className="shape-items">
        {props.items.map((item, index) => (
          <li key={item.key} className="shape-item" data-testid={props.itemTestId(index)}>
            {props.children(item, index)}
            <Button className="btn btn-secondary btn-small" onPress={() => props.onChange(props.items.filter((other) => other.key !== item.key))} aria-label={props.removeLabel(index)}>
              {props.removeText}
            </Button>
          </li>
        ))}
      </ol>
      <Button className="btn btn-secondary" onPress={() => props.onChange([...props.items, props.onAdd()])} isDisabled={props.addDisabled} data-testid={props.addTestId}>
        {props.addText}
      </Button>
    </>
  );
}

/** The weekdays of a time window as checkboxes, Monday first, with the error about them. */
export function WeekdayChecks({ legend, days, onChange, error }: { legend: string; days: number[]; onChange: (days: number[]) => void; error: string | null }) {
  const dayNames = useWeekdayNames('short');
  return (
    <fieldset className="shape-days">
      <legend>{legend}</legend>
      {WEEK.map((day) => (
        <label key={day} className="shape-check shape-day">
          <input type="checkbox" checked={days.includes(day)} onChange={(event) => onChange(event.target.checked ? [...days, day] : days.filter((other) => other !== day))} />
          {dayNames[day]}
        </label>
      ))}
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}
