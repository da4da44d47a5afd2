import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Brand } from '../../modules/brands/model';
import { api, errorText } from '../lib/api';
import { useSession } from '../lib/session';

export type { Brand };

const STORAGE_KEY = 'fleet.subsite';

/**
 * Which brand an anonymous visitor sees: `?subsite=N` in the address (kept for later visits, so a
 * reseller's link or DNS rewrite can pin it), else the last one chosen, else sub-site 0.
 * A signed-in user always sees the brand of their own account.
 */
export function visitorSubsiteId(): number {
  const fromUrl = new URLSearchParams(window.location.search).get('subsite');
  const parsed = fromUrl !== null && /^[0-7]$/.test(fromUrl) ? Number(fromUrl) : null;
  try {
    if (parsed !== null) {
      localStorage.setItem(STORAGE_KEY, String(parsed));
      return parsed;
    }
    const stored = localStorage.getItem(STORAGE_KEY);
    return stored !== null && /^[0-7]$/.test(stored) ? Number(stored) : 0;
  } catch {
    return parsed ?? 0;
  }
}

interface BrandContextValue {
  brand: Brand;
  brands: Brand[];
}

const BrandContext = createContext<BrandContextValue | null>(null);

export function useBrand(): Brand {
  const value = useContext(BrandContext);
  if (!value) throw new Error('useBrand outside BrandProvider');
  return value.brand;
}

/** Brand colours become CSS variables on the document root; every style reads them. */
function applyBrand(brand: Brand) {
  const style = document.documentElement.style;
  style.setProperty('--brand-primary', brand.colors.primary);
  style.setProperty('--brand-primary-contrast', brand.colors.primaryContrast);
  style.setProperty('--brand-accent', brand.colors.accent);
  style.setProperty('--brand-sidebar', brand.colors.sidebar);
  style.setProperty('--brand-sidebar-text', brand.colors.sidebarText);
  style.setProperty('--brand-background', brand.colors.background);
  document.documentElement.dataset.subsite = String(brand.subsiteId);
  document.title = brand.name;
}

/**
 * The brands: the list the entry asked for at start (`initial`), else asked for here, with a retry on failure. A plain
 * request rather than a query: the login page loads no query library.
 */
export function BrandProvider({ initial, children }: { initial: Brand[] | null; children: ReactNode }) {
  const { t } = useTranslation();
  const session = useSession();
  const [brands, setBrands] = useState<Brand[] | null>(initial);
  const [failure, setFailure] = useState<unknown>(null);
  useEffect(() => {
    if (brands || failure) return;
    let current = true;
    api.get<Brand[]>('/api/brands').then(
      (list) => current && setBrands(list),
      (error: unknown) => current && setFailure(error),
    );
    return () => {
      current = false;
    };
  }, [brands, failure]);
  const subsiteId = session?.user.SubsiteID ?? visitorSubsiteId();
  const value = useMemo<BrandContextValue | null>(() => {
    const list = brands ?? [];
    const brand = list.find((b) => b.subsiteId === subsiteId) ?? list[0];
    return brand ? { brand, brands: list } : null;
  }, [brands, subsiteId]);

  useEffect(() => {
    if (value) applyBrand(value.brand);
  }, [value]);

  if (!value) {
    return (
      <main className="boot-screen">
        {failure ? (
          <div className="boot-error" role="alert">
            <p>{errorText(failure)}</p>
            <button type="button" className="btn btn-primary" onClick={() => setFailure(null)}>
              {t('common.retry')}
            </button>
          </div>
        ) : (
          <p className="boot-loading" aria-live="polite">
            {t('common.loading')}
          </p>
        )}
      </main>
    );
  }
  return <BrandContext.Provider value={value}>{children}</BrandContext.Provider>;
}

/** The brand logo; a black logo (sub-site 7) gets a light plate wherever the background is dark. */
export function BrandLogo({ brand, onDark = false, className }: { brand: Brand; onDark?: boolean; className?: string }) {
  const plate = onDark && brand.logoVariant === 'black';
  return (
    <span className={`brand-logo${plate ? ' brand-logo--plate' : ''}${className ? ` ${className}` : ''}`}>
      <img src={brand.logoPath} alt={brand.name} data-testid="brand-logo" />
    </span>
  );
}
