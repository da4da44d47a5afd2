import { Button, Header, Menu, MenuItem, MenuSection, MenuTrigger, Popover } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useDialogs } from '../../components/Dialogs';
import { DownloadProgress, useDownload } from '../../components/DownloadProgress';
import { errorText } from '../../lib/api';
import { EXPORT_FORMATS, EXPORT_VARIANTS, type ExportFormat, type ExportVariant, type TripExportRequest, tripExportFallbackName, tripExportUrl } from './export';

/**
 * Export of the trip log shown (one unit, the chosen period): PDF, CSV or Excel, as the Swedish körjournal, the
 * Norwegian kjørebok or the UK (HMRC) mileage log, with the download's progress beside the button (a year's PDF takes
 * seconds). A failure (e.g. no trips in the period) shows the server's message.
 */
export function ExportMenu({ unitId, from, to, isDisabled }: { unitId: number | null; from?: string; to?: string; isDisabled?: boolean }) {
  const { t } = useTranslation();
  const dialogs = useDialogs();
  const download = useDownload();

  async function run(format: ExportFormat, variant: ExportVariant) {
    if (unitId === null) return;
    const request: TripExportRequest = { unitId, from, to, format, variant };
    try {
      await download.start(tripExportUrl(request), tripExportFallbackName(request));
    } catch (error) {
      await dialogs.showError(errorText(error), t('tripExport.failed'));
    }
  }

  return (
    <>
    <MenuTrigger>
      <Button className="btn btn-secondary" isDisabled={isDisabled || unitId === null} data-testid="triplog-export">
        {t('tripExport.button')}
        <svg viewBox="0 0 12 12" width="12" height="12" aria-hidden="true" focusable="false">
          <path d="M2 4l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.6" />
        </svg>
      </Button>
      <Popover className="triplog-popover triplog-export-popover" placement="bottom end">
        <Menu
          className="triplog-listbox"
          aria-label={t('tripExport.title')}
          onAction={(key) => {
            const [format, variant] = String(key).split(':') as [ExportFormat, ExportVariant];
            void run(format, variant);
          }}
        >
          {EXPORT_VARIANTS.map((variant) => (
            <MenuSection key={variant} className="triplog-menu-section">
              <Header className="triplog-menu-header">{t(`tripExport.variant.${variant}`)}</Header>
              {EXPORT_FORMATS.map((format) => (
                <MenuItem
                  key={format}
                  id={`${format}:${variant}`}
                  className="triplog-option"
                  textValue={`${t(`tripExport.format.${format}`)} – ${t(`tripExport.variant.${variant}`)}`}
                  aria-label={`${t(`tripExport.format.${format}`)} – ${t(`tripExport.variant.${variant}`)}`}
                >
                  {t(`tripExport.format.${format}`)}
                </MenuItem>
              ))}
            </MenuSection>
          ))}
        </Menu>
      </Popover>
    </MenuTrigger>
    <DownloadProgress download={download} />
    </>
  );
}
