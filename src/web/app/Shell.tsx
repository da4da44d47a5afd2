import { useQuery } from '@tanstack/react-query';
import { type ReactNode, Suspense, useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { type Brand, BrandLogo, useBrand } from '../brands/BrandProvider';
import { useDialogs } from '../components/Dialogs';
import { type IconName, Icon } from '../components/Icons';
import { LanguagePicker } from '../components/LanguagePicker';
import { NotFoundPage } from '../components/NotFoundPage';
import { AlarmBell } from '../features/alarms/AlarmBell';
import { ChangePasswordDialog } from '../features/auth/ChangePasswordDialog';
import { CarInfoDialog, carInfoKey } from '../features/units/CarInfoDialog';
import type { CarInfoPending } from '../../modules/units/model';
import { onCarInfoOnboarding, takeCarInfoOnboarding } from '../lib/onboarding';
import { api, errorText } from '../lib/api';
import { currentLanguage } from '../lib/i18n';
import { PATHS, reportsPath } from '../lib/paths';
import { clearSession, landingPath, type Session, type SessionUser, updateSessionUser, useSession } from '../lib/session';
import { useAlertNumbersAllowed, useCarScheduleEnabled, usePublicConfig, useSafeReturnHomeEnabled } from './queries';
import { QueryProvider } from '../lib/query-client';

interface NavEntry {
  to: string;
  label: string;
  icon: IconName;
  /** Extra paths that highlight this entry (spec: Unit also on /user/edit-terminal). */
  alsoActiveOn?: string[];
}

/** Spec §2: the sidebar entries and their visibility rules. */
function useNavEntries(session: Session): { user: NavEntry[]; admin: NavEntry[] } {
  const { t } = useTranslation();
  const carSchedule = useCarScheduleEnabled();
  const safeHome = useSafeReturnHomeEnabled();
  const alertNumbers = useAlertNumbersAllowed();
  const { user } = session;
  const basicOnly = user.userHasOnlyBasSubscription;
  const entries: NavEntry[] = [];
  if (user.RealTimeMap) entries.push({ to: PATHS.liveMap, label: t('nav.map'), icon: 'map' });
  entries.push({ to: PATHS.triplog, label: basicOnly ? t('nav.log') : t('nav.triplog'), icon: 'log' });
  if (!basicOnly) entries.push({ to: reportsPath('summary'), label: t('nav.reports'), icon: 'log', alsoActiveOn: [PATHS.reports] });
  entries.push({ to: PATHS.geofences, label: t('nav.geofences'), icon: 'fence' });
  if (!basicOnly) entries.push({ to: PATHS.places, label: t('nav.places'), icon: 'place' });
  entries.push({ to: PATHS.unitList, label: t('nav.unit'), icon: 'unit', alsoActiveOn: [PATHS.unitEdit] });
  if (!basicOnly && carSchedule.data === true) entries.push({ to: PATHS.carSchedule, label: t('nav.carSchedule'), icon: 'calendar' });
  const admin: NavEntry[] = [];
  // Support or a reseller inside a customer's account reads its administration (read-only).
  if (!user.IsAdmin && user.ActingAccount) {
    admin.push({ to: PATHS.userAccounts, label: t('nav.userAccounts'), icon: 'users' });
    admin.push({ to: PATHS.auditLog, label: t('nav.auditLog'), icon: 'log' });
  }
  if (user.IsAdmin) {
    admin.push({ to: PATHS.userAccounts, label: t('nav.userAccounts'), icon: 'users' });
    admin.push({ to: PATHS.accountSettings, label: t('nav.accountSettings'), icon: 'settings' });
    admin.push({ to: PATHS.auditLog, label: t('nav.auditLog'), icon: 'log' });
    if (!basicOnly && safeHome.data === true) {
      admin.push({ to: PATHS.safeReturnHome, label: t('nav.safeReturnHome'), icon: 'home' });
    }
    admin.push({ to: PATHS.alarmReceiver, label: t('nav.alarmReceivers'), icon: 'bell' });
    admin.push({ to: PATHS.addTerminal, label: t('nav.addUnit'), icon: 'plus' });
  }
  // Spec §6: support registers trackers too.
  if (!user.IsAdmin && user.Role === 'support') admin.push({ to: PATHS.addTerminal, label: t('nav.addUnit'), icon: 'plus' });
  if (user.Role === 'support' || user.Role === 'reseller') admin.push({ to: PATHS.customerAccounts, label: t('nav.customerAccounts'), icon: 'users' });
  if (alertNumbers) admin.push({ to: PATHS.alertNumbers, label: t('nav.alertNumbers'), icon: 'phone' });
  return { user: entries, admin };
}

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '') + (parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? '') : '')).toUpperCase() || '?';
}

function NavItem({ entry, onNavigate }: { entry: NavEntry; onNavigate: () => void }) {
  const location = useLocation();
  const extraActive = entry.alsoActiveOn?.some((path) => location.pathname === path || location.pathname.startsWith(`${path}/`));
  return (
    <li>
      <NavLink
        to={entry.to}
        onClick={onNavigate}
        className={({ isActive }) => `nav-link${isActive || extraActive ? ' active' : ''}`}
        aria-current={extraActive ? 'page' : undefined}
      >
        <Icon name={entry.icon} />
        <span>{entry.label}</span>
      </NavLink>
    </li>
  );
}

function Sidebar({ session, brand, open, onNavigate }: { session: Session; brand: Brand; open: boolean; onNavigate: () => void }) {
  const { t } = useTranslation();
  const [changingPassword, setChangingPassword] = useState(false);
  const entries = useNavEntries(session);
  return (
    <aside id="sidebar" className={`sidebar${open ? ' open' : ''}`} aria-label={t('nav.sidebar')}>
      <div className="sidebar-logo">
        <BrandLogo brand={brand} onDark />
      </div>
      <div className="sidebar-user">
        <span className="avatar" style={{ backgroundColor: session.avatarColor }} aria-hidden="true" data-testid="avatar">
          {initials(session.user.FullName)}
        </span>
        <span className="sidebar-user-name" data-testid="user-name">
          {session.user.FullName}
        </span>
        <Button className="icon-button sidebar-lock" aria-label={t('changePassword.open')} onPress={() => setChangingPassword(true)}>
          <Icon name="lock" />
        </Button>
      </div>
      <nav aria-label={t('nav.main')}>
        <ul className="nav-list">
          {entries.user.map((entry) => (
            <NavItem key={entry.to} entry={entry} onNavigate={onNavigate} />
          ))}
        </ul>
        {entries.admin.length > 0 && (
          <>
            <h2 className="nav-heading">{t('nav.administration')}</h2>
            <ul className="nav-list">
              {entries.admin.map((entry) => (
                <NavItem key={entry.to} entry={entry} onNavigate={onNavigate} />
              ))}
            </ul>
          </>
        )}
      </nav>
      <ChangePasswordDialog user={session.user} isOpen={changingPassword} onClose={() => setChangingPassword(false)} />
    </aside>
  );
}

const CLOSED_ANNOUNCEMENT_KEY = 'fleet.announcement.closed';

function Announcement({ brand }: { brand: Brand }) {
  const { t, i18n } = useTranslation();
  const [closed, setClosed] = useState(() => sessionStorage.getItem(CLOSED_ANNOUNCEMENT_KEY));
  const query = useQuery({
    queryKey: ['announcement', brand.subsiteId, i18n.language],
    queryFn: () => api.post<{ id: number; text: string } | null>('/api/announcement', { lang: currentLanguage(), subsiteID: brand.subsiteId }),
    staleTime: 5 * 60 * 1000,
  });
  const announcement = query.data;
  if (!announcement || closed === String(announcement.id)) return null;
  return (
    <section className="announcement" aria-label={t('header.announcement')}>
      <p>{announcement.text}</p>
      <button
        type="button"
        className="banner-close"
        aria-label={t('header.closeAnnouncement')}
        onClick={() => {
          sessionStorage.setItem(CLOSED_ANNOUNCEMENT_KEY, String(announcement.id));
          setClosed(String(announcement.id));
        }}
      >
        <span aria-hidden="true">×</span>
      </button>
    </section>
  );
}

function Header({ session, brand, sidebarOpen, onToggle }: { session: Session; brand: Brand; sidebarOpen: boolean; onToggle: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const [busy, setBusy] = useState(false);

  async function logout() {
    setBusy(true);
    try {
      await api.post('/api/logout');
      clearSession();
      navigate(PATHS.login, { replace: true });
    } catch (error) {
      setBusy(false);
      await dialogs.showError(errorText(error));
    }
  }

  return (
    <header className="header">
      <Button className="icon-button menu-toggle" aria-label={t('header.menu')} aria-expanded={sidebarOpen} aria-controls="sidebar" onPress={onToggle}>
        <Icon name="menu" />
      </Button>
      <Link to={landingPath(session.user)} className="header-title">
        {brand.name}
      </Link>
      <div className="header-actions">
        {brand.supportEmail && (
          <a className="header-support" href={`mailto:${brand.supportEmail}`} data-testid="support-link">
            <Icon name="mail" />
            <span className="hide-narrow">{t('header.support')}</span>
            <span className="visually-hidden show-narrow-sr">{t('header.support')}</span>
          </a>
        )}
        <AlarmBell />
        <LanguagePicker />
        <Button className="btn btn-header" onPress={() => void logout()} isDisabled={busy}>
          <Icon name="logout" />
          <span>{t('header.logout')}</span>
        </Button>
      </div>
    </header>
  );
}

/** Support or a reseller inside a customer's account: always in view, with the way out (ends that session). */
function ActingBanner({ account }: { account: { ID: number; CompanyName: string } }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  async function leave() {
    try {
      await api.post('/api/logout');
      clearSession();
      navigate(PATHS.login, { replace: true });
    } catch (error) {
      await dialogs.showError(errorText(error));
    }
  }
  return (
    <section className="acting-banner" role="status" aria-label={t('acting.label')} data-testid="acting-banner">
      <span>{t('acting.text', { company: account.CompanyName || `#${account.ID}` })}</span>
      <Button className="btn btn-secondary btn-small" onPress={() => void leave()}>
        {t('acting.leave')}
      </Button>
    </section>
  );
}

const NARROW = '(max-width: 900px)';

/**
 * Car info onboarding opened by itself (spec §2): after registration (the first sign-in, or whenever a flow asks), the
 * administrator gets the guided form for the trip-log units not yet through it and not skipped. Skipping keeps them in
 * the unit list's "car info" button, where the form resumes.
 */
function CarInfoOnboarding() {
  const [asked, setAsked] = useState(() => takeCarInfoOnboarding());
  const [open, setOpen] = useState(false);
  // The units the form walks through, as they were when it opened.
  const [units, setUnits] = useState<CarInfoPending[]>([]);
  useEffect(
    () =>
      onCarInfoOnboarding(() => {
        if (takeCarInfoOnboarding()) setAsked(true);
      }),
    [],
  );
  const pending = useQuery({ queryKey: carInfoKey, queryFn: () => api.get<CarInfoPending[]>('/api/units/car-info'), enabled: asked && !open });
  const fresh = (pending.data ?? []).filter((unit) => !unit.skipped);
  useEffect(() => {
    if (!asked || !pending.isFetched || pending.isFetching) return;
    setAsked(false);
    if (fresh.length === 0) return;
    setUnits(fresh);
    setOpen(true);
  }, [asked, pending.isFetched, pending.isFetching, fresh]);
  return <CarInfoDialog units={units} isOpen={open && units.length > 0} onClose={() => setOpen(false)} />;
}

/**
 * Spec §2: with a signed-in user, sidebar, header (with announcement) and content, then the footer. The signed-in
 * screens ask the server through the app's query client, which loads with this frame.
 */
export function Shell({ children }: { children?: ReactNode }) {
  return (
    <QueryProvider>
      <Frame>{children}</Frame>
    </QueryProvider>
  );
}

function Frame({ children }: { children?: ReactNode }) {
  const session = useSession();
  const brand = useBrand();
  const { t } = useTranslation();
  const location = useLocation();
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);
  const [open, setOpen] = useState(() => !window.matchMedia(NARROW).matches);

  useEffect(() => {
    const media = window.matchMedia(NARROW);
    const update = () => {
      setNarrow(media.matches);
      setOpen(!media.matches);
    };
    media.addEventListener('change', update);
    return () => media.removeEventListener('change', update);
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: moving to another page closes the phone drawer
  useEffect(() => {
    if (narrow) setOpen(false);
  }, [location.pathname]);

  // The stored user is refreshed from the server once per visit (flags such as the map module may change);
  // an expired token answers `Unauthenticated.`, which ends the session.
  const me = useQuery({
    queryKey: ['me', session?.user.ID],
    queryFn: () => api.get<{ user: SessionUser }>('/api/me'),
    enabled: Boolean(session),
    staleTime: 5 * 60 * 1000,
  });
  useEffect(() => {
    if (me.data) void updateSessionUser(me.data.user);
  }, [me.data]);

  if (!session) return null;
  return (
    <div className={`shell${open ? ' sidebar-open' : ' sidebar-closed'}${narrow ? ' narrow' : ''}`}>
      <a href="#content" className="skip-link">
        {t('common.skipToContent')}
      </a>
      <Sidebar session={session} brand={brand} open={open} onNavigate={() => narrow && setOpen(false)} />
      {narrow && open && <button type="button" className="sidebar-backdrop" aria-label={t('header.closeMenu')} onClick={() => setOpen(false)} />}
      <div className="shell-main">
        <Header session={session} brand={brand} sidebarOpen={open} onToggle={() => setOpen((value) => !value)} />
        {session.user.ActingAccount && <ActingBanner account={session.user.ActingAccount} />}
        {session.user.IsAdmin && !session.user.ActingAccount && <CarInfoOnboarding />}
        <Announcement brand={brand} />
        <main id="content" className="content" tabIndex={-1}>
          {/* Screens are loaded when first shown: the menu and header stay while one loads. */}
          <Suspense fallback={<p aria-live="polite">{t('common.loading')}</p>}>{children ?? <Outlet />}</Suspense>
        </main>
        <footer className="footer">
          <span data-testid="footer">
            {brand.name} © {new Date().getFullYear()}
          </span>
        </footer>
      </div>
    </div>
  );
}

/*
 * The gates of the screens the server or the account can switch off. They ask what the menu asks to show or hide
 * their entries, and load with the frame, which renders before any screen inside it.
 */

/** A screen the server switches on or off, and a basic-only subscription never has: otherwise the user goes to the map. */
function SwitchedGate({ enabled, children }: { enabled: { isPending: boolean; data?: boolean }; children: ReactNode }) {
  const session = useSession();
  if (enabled.isPending) return null;
  if (enabled.data !== true || session?.user.userHasOnlyBasSubscription) return <Navigate to={PATHS.liveMap} replace />;
  return children;
}

/** Car schedule: EnableCarSchedule (spec §2). */
export function CarScheduleGate({ children }: { children: ReactNode }) {
  return <SwitchedGate enabled={useCarScheduleEnabled()}>{children}</SwitchedGate>;
}

/** Safe return home: EnableSafeReturnHome (spec §2). */
export function SafeReturnHomeGate({ children }: { children: ReactNode }) {
  return <SwitchedGate enabled={useSafeReturnHomeEnabled()}>{children}</SwitchedGate>;
}

/** Alert numbers: only the parent account named in configuration has the page; anyone else finds nothing there. */
export function AlertNumbersGate({ children }: { children: ReactNode }) {
  const config = usePublicConfig();
  const allowed = useAlertNumbersAllowed();
  if (config.isPending) return null;
  return allowed ? children : <NotFoundPage />;
}
