import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { LocalDateTime, VehicleSchedule } from '../../../modules/bookings/model';
import { useCarScheduleEnabled } from '../../app/queries';
import { api } from '../../lib/api';
import { localeTag } from '../../lib/i18n';
import { PATHS } from '../../lib/paths';
import { useSession } from '../../lib/session';

/** A wall-clock time of the account (no zone of its own) shown as it is. */
function formatWallClock(value: LocalDateTime, language: string): string {
  return new Intl.DateTimeFormat(localeTag(language), { dateStyle: 'short', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(`${value.slice(0, 19)}Z`));
}

/** The unit page's read-only list of the vehicle's coming bookings, when the car schedule is on (spec §2). */
export function UnitBookingsSection({ unitId }: { unitId: number }) {
  const { t, i18n } = useTranslation();
  const session = useSession();
  const enabled = useCarScheduleEnabled();
  const on = enabled.data === true && !session?.user.userHasOnlyBasSubscription;
  const bookings = useQuery({
    queryKey: ['car-schedule', 'unit', unitId],
    queryFn: () => api.get<VehicleSchedule>(`/api/car-schedule/units/${unitId}/bookings`),
    enabled: on,
    retry: false,
  });
  if (!on || !bookings.data) return null;
  const entries = bookings.data.Schedule;
  return (
    <section className="unit-section" aria-labelledby="unit-bookings-title" data-testid="unit-bookings">
      <h2 id="unit-bookings-title" className="unit-section-title">
        {t('carSchedule.unit.title')}
      </h2>
      {entries.length === 0 ? (
        <p>{t('carSchedule.unit.none')}</p>
      ) : (
        <ul className="history-list">
          {entries.map((booking) => (
            <li key={booking.ID} data-testid={`unit-booking-${booking.ID}`}>
              {t('carSchedule.unit.entry', {
                from: formatWallClock(booking.StartDate, i18n.language),
                to: formatWallClock(booking.EndDate, i18n.language),
                driver: booking.DriverName,
                purpose: booking.Purpose,
              })}
            </li>
          ))}
        </ul>
      )}
      <p>
        <Link to={entries[0] ? `${PATHS.carSchedule}?week=${entries[0].StartDate.slice(0, 10)}` : PATHS.carSchedule}>{t('carSchedule.unit.open')}</Link>
      </p>
    </section>
  );
}
