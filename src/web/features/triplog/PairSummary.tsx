import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { TripLogEntry } from '../../../modules/trips/model';
import { pairwiseSummary } from './pairs';

/** Spec §4: pairwise summaries of the selected trips (out and back); an odd selection shows the rule instead. */
export function PairSummary({
  trips,
  time,
  km,
  duration,
  onClose,
}: {
  trips: TripLogEntry[];
  time: (iso: string) => string;
  km: (metres: number) => string;
  duration: (seconds: number) => string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const summary = pairwiseSummary(trips);
  const place = (trip: TripLogEntry) => `${trip.startAddress ?? '–'} → ${trip.stopAddress ?? '–'}`;
  return (
    <section className="triplog-card triplog-pairs" aria-labelledby="triplog-pairs-title" data-testid="pair-summary">
      <div className="triplog-card-head">
        <h2 className="triplog-card-title" id="triplog-pairs-title">
          {t('triplog.pairs.title')}
        </h2>
        <Button className="btn btn-secondary triplog-small" onPress={onClose}>
          {t('triplog.pairs.close')}
        </Button>
      </div>
      <div aria-live="polite">
        {!summary.ok && summary.reason === 'odd' && (
          <p className="triplog-rule" role="alert" data-testid="pair-rule">
            {t('triplog.pairs.even')} {t('triplog.pairs.selected', { count: summary.count })}
          </p>
        )}
        {!summary.ok && summary.reason === 'none' && <p className="triplog-muted">{t('triplog.pairs.hint')}</p>}
        {summary.ok && (
          <div className="triplog-table-wrap">
            <table className="triplog-table triplog-pairs-table">
              <caption className="visually-hidden">{t('triplog.pairs.title')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('triplog.pairs.pair')}</th>
                  <th scope="col">{t('triplog.pairs.out')}</th>
                  <th scope="col">{t('triplog.pairs.back')}</th>
                  <th scope="col" className="num">
                    {t('triplog.distance')}
                  </th>
                  <th scope="col" className="num">
                    {t('triplog.pairs.driving')}
                  </th>
                  <th scope="col" className="num">
                    {t('triplog.pairs.elapsed')}
                  </th>
                </tr>
              </thead>
              <tbody>
                {summary.pairs.map((pair, index) => (
                  <tr key={pair.out.id} data-testid={`pair-${index + 1}`}>
                    <th scope="row">{index + 1}</th>
                    <td>
                      <div>{time(pair.out.startTime)}</div>
                      <div className="triplog-address">{place(pair.out)}</div>
                    </td>
                    <td>
                      <div>{time(pair.back.startTime)}</div>
                      <div className="triplog-address">{place(pair.back)}</div>
                    </td>
                    <td className="num">{km(pair.distanceM)} km</td>
                    <td className="num">{duration(pair.durationS)} h</td>
                    <td className="num">{duration(pair.elapsedS)} h</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr data-testid="pair-total">
                  <th scope="row" colSpan={3}>
                    {t('triplog.pairs.total', { count: summary.pairs.length })}
                  </th>
                  <td className="num">{km(summary.distanceM)} km</td>
                  <td className="num">{duration(summary.durationS)} h</td>
                  <td />
                </tr>
              </tfoot>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}
