import { useCallback, useEffect, useRef, useState } from 'react';
import { Button, ProgressBar } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { type DownloadProgress as Progress, downloadFile } from '../lib/download';

interface Running {
  progress: Progress;
}

/**
 * A download with its progress, for export buttons: `start(path, fallbackName)` fetches the file (resolving
 * with its name, or null when cancelled) and `<DownloadProgress download={…} />` shows how far it has come
 * with a way to cancel.
 *
 *   const download = useDownload();
 *   <Button onPress={() => void download.start('/api/…/export?format=pdf', 'report.pdf')}>…</Button>
 *   <DownloadProgress download={download} />
 */
export function useDownload() {
  const [running, setRunning] = useState<Running | null>(null);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const start = useCallback(async (path: string, fallbackName: string): Promise<string | null> => {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setRunning({ progress: { received: 0, total: null, estimated: false } });
    try {
      return await downloadFile(path, { fallbackName, signal: abort.signal, onProgress: (progress) => setRunning({ progress }) });
    } catch (error) {
      if (abort.signal.aborted) return null;
      throw error;
    } finally {
      if (controller.current === abort) {
        controller.current = null;
        setRunning(null);
      }
    }
  }, []);
  const cancel = useCallback(() => controller.current?.abort(), []);
  return { running, start, cancel };
}

function size(bytes: number, language: string): string {
  const format = new Intl.NumberFormat(language === 'no' ? 'nb-NO' : language, { maximumFractionDigits: bytes < 1024 * 1024 ? 0 : 1 });
  return bytes < 1024 * 1024 ? `${format.format(bytes / 1024)} KB` : `${format.format(bytes / 1024 / 1024)} MB`;
}

export function DownloadProgress({ download }: { download: ReturnType<typeof useDownload> }) {
  const { t, i18n } = useTranslation();
  const { running, cancel } = download;
  if (!running) return null;
  const { received, total, estimated } = running.progress;
  // An estimated total is only a guess: the bar stops short of full until the last byte is in.
  const percent = total ? Math.min(estimated ? 99 : 100, Math.floor((received / total) * 100)) : null;
  const text = received === 0 ? t('download.preparing') : percent === null ? t('download.received', { size: size(received, i18n.language) }) : t('download.percent', { percent });
  return (
    <div className="download-progress" data-testid="download-progress">
      <ProgressBar className="download-progress-bar" aria-label={t('download.label')} value={percent ?? 0} isIndeterminate={percent === null} valueLabel={text}>
        {({ percentage }) => (
          <>
            <span className="download-progress-text">{text}</span>
            <span className="download-progress-track" aria-hidden="true">
              <span className="download-progress-fill" style={{ width: percent === null ? '30%' : `${percentage ?? 0}%` }} data-indeterminate={percent === null || undefined} />
            </span>
          </>
        )}
      </ProgressBar>
      <Button className="btn btn-link download-progress-cancel" onPress={cancel}>
        {t('download.cancel')}
      </Button>
    </div>
  );
}
