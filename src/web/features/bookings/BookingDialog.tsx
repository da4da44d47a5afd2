import { type FormEvent, useId, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import {
  BOOKING_MESSAGES,
  BOOKING_PURPOSE_MAX,
  BOOKING_STEP_MINUTES,
  type BookingEntry,
  bookingFormSchema,
  correctPastEnd,
  correctPastStart,
  defaultWindow,
  type LocalDateTime,
} from '../../../modules/bookings/model';
import { AppDialog } from '../../components/Dialogs';
import { Banner, Field, SelectField } from '../../components/Form';
import { errorText, isApiError } from '../../lib/api';
import { translateMessage } from '../../lib/i18n';
import { zodFieldErrors } from '../../lib/validation';
import { useDeleteBooking, useDrivers, useSaveBooking } from './api';
import { accountNow } from './time';

/** A vehicle a booking can be made for. */
export interface BookableVehicle {
  Imei: string;
  Name: string;
  RegistrationNumber: string;
}

export type BookingTarget =
  | { kind: 'new'; day: string; vehicles: readonly BookableVehicle[]; imei: string | null }
  | { kind: 'edit'; booking: BookingEntry; vehicle: BookableVehicle | null };

const TIMES = Array.from({ length: (24 * 60) / BOOKING_STEP_MINUTES }, (_, index) => {
  const minutes = index * BOOKING_STEP_MINUTES;
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
});

const join = (day: string, time: string): LocalDateTime => `${day}T${time}:00`;

/** The payload fields the form shows errors at. */
type FieldName = 'imei' | 'driver_id' | 'start_date' | 'end_date' | 'purpose';
const FIELDS: readonly FieldName[] = ['imei', 'driver_id', 'start_date', 'end_date', 'purpose'];

/**
 * New Booking and Edit Booking (spec §2, §5): vehicle (when several), driver (administrators), start and end as a day
 * and a time in 15-minute steps, purpose. Checked with the server's own schema; the server's 422 keys land at their
 * fields, "already booked" above the buttons. Edit Booking leads to the Delete Booking confirmation.
 */
export function BookingDialog({
  target,
  timeZone,
  isAdmin,
  userId,
  onClose,
  onDone,
}: {
  target: BookingTarget;
  timeZone: string;
  isAdmin: boolean;
  userId: number;
  onClose: () => void;
  /** After a save or delete: the success message key for the result modal. */
  onDone: (messageKey: string) => void;
}) {
  const { t } = useTranslation();
  const formId = useId();
  const save = useSaveBooking();
  const remove = useDeleteBooking();
  const editing = target.kind === 'edit' ? target.booking : null;
  const [initial] = useState(() => {
    if (editing) {
      return {
        imei: editing.Imei,
        driver: String(editing.DriverId),
        startDay: editing.StartDate.slice(0, 10),
        startTime: editing.StartDate.slice(11, 16),
        endDay: editing.EndDate.slice(0, 10),
        endTime: editing.EndDate.slice(11, 16),
        purpose: editing.Purpose,
      };
    }
    const newTarget = target as Extract<BookingTarget, { kind: 'new' }>;
    const window = defaultWindow(accountNow(timeZone), newTarget.day);
    const only = newTarget.imei ?? (newTarget.vehicles.length === 1 ? newTarget.vehicles[0]!.Imei : '');
    return {
      imei: only,
      driver: isAdmin ? '' : String(userId),
      startDay: window.start.slice(0, 10),
      startTime: window.start.slice(11, 16),
      endDay: window.end.slice(0, 10),
      endTime: window.end.slice(11, 16),
      purpose: '',
    };
  });
  const [imei, setImei] = useState(initial.imei);
  const [driver, setDriver] = useState(initial.driver);
  const [startDay, setStartDay] = useState(initial.startDay);
  const [startTime, setStartTime] = useState(initial.startTime);
  const [endDay, setEndDay] = useState(initial.endDay);
  const [endTime, setEndTime] = useState(initial.endTime);
  const [purpose, setPurpose] = useState(initial.purpose);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ start?: string; end?: string }>({});
  const [confirmingDelete, setConfirmingDelete] = useState(false);

  const drivers = useDrivers(imei, isAdmin);
  const readOnly = editing !== null && !editing.Editable;
  const startLocked = editing?.Started === true;
  const vehicles = target.kind === 'new' ? target.vehicles : [];
  const chooseVehicle = target.kind === 'new' && target.imei === null && vehicles.length > 1;
  const vehicle =
    target.kind === 'edit' ? target.vehicle : (vehicles.find((candidate) => candidate.Imei === imei) ?? null);
  const today = accountNow(timeZone).slice(0, 10);

  function clearError(field: FieldName) {
    setErrors(({ [field]: _gone, ...rest }) => rest);
    setFormError(null);
  }

  /** Spec §5: a start today that has passed goes to now, an end today that has passed to one hour ahead. */
  function changeStart(day: string, time: string) {
    clearError('start_date');
    const corrected = correctPastStart(join(day, time), accountNow(timeZone));
    setStartDay(corrected.value.slice(0, 10));
    setStartTime(corrected.value.slice(11, 16));
    setNotice((current) => ({ ...current, start: corrected.notice ? translateMessage(corrected.notice) : undefined }));
  }
  function changeEnd(day: string, time: string) {
    clearError('end_date');
    const corrected = correctPastEnd(join(day, time), accountNow(timeZone));
    setEndDay(corrected.value.slice(0, 10));
    setEndTime(corrected.value.slice(11, 16));
    setNotice((current) => ({ ...current, end: corrected.notice ? translateMessage(corrected.notice) : undefined }));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (readOnly) return;
    const input = {
      imei,
      start_date: join(startDay, startTime),
      end_date: join(endDay, endTime),
      purpose,
      driver_id: isAdmin ? (driver ? Number(driver) : null) : undefined,
    };
    const parsed = bookingFormSchema({ requireDriver: isAdmin }).safeParse(input);
    const now = accountNow(timeZone);
    // Spec §5: no past date or time (a running booking keeps its start, which has passed).
    const pastStart =
      startLocked || input.start_date >= now
        ? null
        : startDay < now.slice(0, 10)
          ? BOOKING_MESSAGES.ErrPastDateMsg
          : editing
            ? BOOKING_MESSAGES.ErrEditPastDateMsg
            : BOOKING_MESSAGES.ErrSavePastDateMsg;
    if (!parsed.success || pastStart) {
      const found = parsed.success ? {} : zodFieldErrors(parsed.error);
      if (pastStart && !found.start_date) found.start_date = translateMessage(pastStart);
      setErrors(Object.fromEntries(FIELDS.filter((field) => found[field]).map((field) => [field, found[field]!])));
      const other = Object.entries(found).find(([field]) => !FIELDS.includes(field as FieldName));
      setFormError(other ? other[1] : null);
      return;
    }
    const data = { ...parsed.data, driver_id: isAdmin ? parsed.data.driver_id : undefined };
    try {
      if (editing) await save.mutateAsync({ id: editing.ID, ...data });
      else await save.mutateAsync(data);
      onDone(editing ? BOOKING_MESSAGES.UpdateSuccessMsg : BOOKING_MESSAGES.NewBookingSuccessMsg);
    } catch (caught) {
      showServerError(caught);
    }
  }

  function showServerError(caught: unknown) {
    if (isApiError(caught) && Object.keys(caught.fields).length > 0) {
      const next: Partial<Record<FieldName, string>> = {};
      const rest: string[] = [];
      for (const [field, messages] of Object.entries(caught.fields)) {
        const text = (messages ?? []).join(' ');
        if (FIELDS.includes(field as FieldName)) next[field as FieldName] = text;
        else rest.push(text);
      }
      setErrors(next);
      setFormError(rest.join(' ') || null);
      return;
    }
    setFormError(errorText(caught));
  }

  async function confirmDelete() {
    if (!editing) return;
    try {
      await remove.mutateAsync(editing.ID);
      onDone(BOOKING_MESSAGES.DeleteMsg);
    } catch (caught) {
      setConfirmingDelete(false);
      setFormError(errorText(caught));
    }
  }

  const title = confirmingDelete ? t('carSchedule.delete.title') : editing ? t('carSchedule.edit.title') : t('carSchedule.new.title');
  const driverOptions = [
    { value: '', label: t('carSchedule.form.chooseDriver') },
    ...(drivers.data ?? []).map((member) => ({ value: String(member.ID), label: member.FirstName })),
  ];
  // An edited booking's driver stays listed while the list loads (or when it is no longer among the drivers).
  if (editing && !driverOptions.some((option) => option.value === String(editing.DriverId))) {
    driverOptions.push({ value: String(editing.DriverId), label: editing.DriverName });
  }
  const describedTime = `${startDay} ${startTime} - ${endDay === startDay ? '' : `${endDay} `}${endTime}`;

  return (
    <AppDialog isOpen onOpenChange={(open) => !open && onClose()} title={title} className="booking-dialog" role={confirmingDelete ? 'alertdialog' : 'dialog'}>
      {confirmingDelete && editing ? (
        <>
          <div className="dialog-body">
            <p data-testid="booking-delete-text">
              {t('carSchedule.delete.confirm', { vehicle: vehicle?.Name ?? editing.Imei, when: describedTime })}
            </p>
            {formError && <Banner kind="error">{formError}</Banner>}
          </div>
          <div className="dialog-actions">
            <Button className="btn btn-secondary" onPress={() => setConfirmingDelete(false)}>
              {t('common.cancel')}
            </Button>
            <Button className="btn btn-danger" onPress={() => void confirmDelete()} isDisabled={remove.isPending} data-testid="booking-delete-confirm" autoFocus>
              {t('carSchedule.delete.action')}
            </Button>
          </div>
        </>
      ) : (
        <form id={formId} className="booking-form" onSubmit={(event) => void submit(event)} noValidate data-testid="booking-form">
          <div className="dialog-body">
            {readOnly && editing && (
              <Banner kind="info">
                <span data-testid="booking-readonly">
                  {translateMessage(!editing.Mine && !isAdmin ? BOOKING_MESSAGES.CannotEditOthersBooking : BOOKING_MESSAGES.ErrEditPastDateMsg)}
                </span>
              </Banner>
            )}
            {chooseVehicle ? (
              <SelectField
                label={t('carSchedule.form.vehicle')}
                value={imei}
                onChange={(value) => {
                  setImei(value);
                  clearError('imei');
                }}
                options={[{ value: '', label: t('carSchedule.form.chooseVehicle') }, ...vehicles.map((option) => ({ value: option.Imei, label: vehicleLabel(option) }))]}
                error={errors.imei}
                testId="booking-vehicle"
              />
            ) : (
              <p className="booking-vehicle" data-testid="booking-vehicle-name">
                <span className="booking-label">{t('carSchedule.form.vehicle')}</span> {vehicle ? vehicleLabel(vehicle) : (editing?.Imei ?? '')}
                {errors.imei && <span className="field-error">{errors.imei}</span>}
              </p>
            )}
            {isAdmin ? (
              <SelectField
                label={t('carSchedule.form.driver')}
                value={driver}
                onChange={(value) => {
                  setDriver(value);
                  clearError('driver_id');
                }}
                options={driverOptions}
                error={errors.driver_id ?? (drivers.isError ? errorText(drivers.error) : null)}
                testId="booking-driver"
                disabled={readOnly}
              />
            ) : (
              editing && (
                <p className="booking-vehicle">
                  <span className="booking-label">{t('carSchedule.form.driver')}</span> {editing.DriverName}
                </p>
              )
            )}
            <fieldset className="booking-when">
              <legend className="visually-hidden">{t('carSchedule.form.start')}</legend>
              <div className="booking-when-row">
                <DayInput label={t('carSchedule.form.startDay')} value={startDay} min={startLocked ? undefined : today} disabled={readOnly || startLocked} onChange={(day) => changeStart(day, startTime)} testId="booking-start-day" invalid={Boolean(errors.start_date)} />
                <SelectField label={t('carSchedule.form.startTime')} value={startTime} onChange={(time) => changeStart(startDay, time)} options={timeOptions(startTime)} testId="booking-start-time" disabled={readOnly || startLocked} />
              </div>
              {notice.start && <p className="field-warning" role="status" data-testid="booking-start-notice">{notice.start}</p>}
              {startLocked && !readOnly && <p className="field-description">{t('carSchedule.form.startLocked')}</p>}
              {errors.start_date && <p className="field-error" role="alert" data-testid="booking-start-error">{errors.start_date}</p>}
            </fieldset>
            <fieldset className="booking-when">
              <legend className="visually-hidden">{t('carSchedule.form.end')}</legend>
              <div className="booking-when-row">
                <DayInput label={t('carSchedule.form.endDay')} value={endDay} min={today} disabled={readOnly} onChange={(day) => changeEnd(day, endTime)} testId="booking-end-day" invalid={Boolean(errors.end_date)} />
                <SelectField label={t('carSchedule.form.endTime')} value={endTime} onChange={(time) => changeEnd(endDay, time)} options={timeOptions(endTime)} testId="booking-end-time" disabled={readOnly} />
              </div>
              {notice.end && <p className="field-warning" role="status" data-testid="booking-end-notice">{notice.end}</p>}
              {errors.end_date && <p className="field-error" role="alert" data-testid="booking-end-error">{errors.end_date}</p>}
            </fieldset>
            {readOnly ? (
              <p className="booking-vehicle">
                <span className="booking-label">{t('carSchedule.form.purpose')}</span> {purpose}
              </p>
            ) : (
              <Field
                label={t('carSchedule.form.purpose')}
                value={purpose}
                onChange={(value) => {
                  setPurpose(value);
                  clearError('purpose');
                }}
                maxLength={BOOKING_PURPOSE_MAX}
                error={errors.purpose}
                isRequired
                testId="booking-purpose"
                description={t('carSchedule.form.purposeHint', { count: BOOKING_PURPOSE_MAX - purpose.length })}
              />
            )}
            {formError && (
              <div data-testid="booking-form-error">
                <Banner kind="error">{formError}</Banner>
              </div>
            )}
          </div>
          <div className="dialog-actions">
            {editing?.Editable && !editing.Started && (
              <Button className="btn btn-danger booking-delete" onPress={() => setConfirmingDelete(true)} data-testid="booking-delete">
                {t('carSchedule.delete.action')}
              </Button>
            )}
            <Button className="btn btn-secondary" onPress={onClose} data-testid="booking-cancel">
              {readOnly ? t('carSchedule.form.close') : t('common.cancel')}
            </Button>
            {!readOnly && (
              <Button type="submit" className="btn btn-primary" isDisabled={save.isPending} data-testid="booking-save">
                {editing ? t('carSchedule.form.update') : t('carSchedule.form.save')}
              </Button>
            )}
          </div>
        </form>
      )}
    </AppDialog>
  );
}

export function vehicleLabel(vehicle: BookableVehicle): string {
  return vehicle.RegistrationNumber ? `${vehicle.Name} (${vehicle.RegistrationNumber})` : vehicle.Name;
}

/** The 15-minute steps, and the current value when a stored time lies between steps. */
function timeOptions(current: string) {
  const options = TIMES.map((time) => ({ value: time, label: time }));
  if (!TIMES.includes(current)) options.unshift({ value: current, label: current });
  return options;
}

function DayInput({
  label,
  value,
  min,
  disabled,
  onChange,
  testId,
  invalid,
}: {
  label: string;
  value: string;
  min?: string;
  disabled?: boolean;
  onChange: (day: string) => void;
  testId: string;
  invalid: boolean;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <input
        id={id}
        type="date"
        className="field-input"
        value={value}
        min={min}
        disabled={disabled}
        required
        aria-invalid={invalid || undefined}
        onChange={(event) => {
          if (event.target.value) onChange(event.target.value);
        }}
        data-testid={testId}
      />
    </div>
  );
}
