import { type ComponentType, createElement, lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Outlet, Route, Routes, useNavigate } from 'react-router';
import { LoginPage } from '../features/auth/LoginPage';
import { NotFoundPage, StandaloneNotFoundPage } from '../components/NotFoundPage';
import { NAVIGATE_EVENT } from '../lib/api';
import { loadScreenTexts } from '../lib/i18n';
import { PATHS, reportsPath } from '../lib/paths';
import { landingPath, useSession } from '../lib/session';

/** Modules loaded so far, by their load function: the screens of one module (the frame and its gates) share it. */
const loadedModules = new Map<unknown, unknown>();

/**
 * Every screen but the login page is its own chunk, loaded when first shown: the login page loads only what it needs
 * (the map, deck.gl, the query library, the exports, the other screens and the texts of the whole app come after
 * signing in).
 */

function screen<M, K extends keyof M>(load: () => Promise<M>, name: K): M[K] & { preload: () => Promise<void> } {
  // Once loaded, the component is rendered directly: `React.lazy` would suspend once more even then.
  const loaded = () => (loadedModules.get(load) as M | undefined)?.[name] as ComponentType<Record<string, unknown>> | undefined;
  const preload = async () => {
    // With the whole catalogue of texts (the login page has only its own).
    const [module] = await Promise.all([load(), loadScreenTexts()]);
    loadedModules.set(load, module);
  };
  const Lazy = lazy(async () => {
    await preload();
    return { default: loaded() as ComponentType<Record<string, unknown>> };
  });
  // Which of the two is decided once per mount: switching from the lazy one to the loaded one would mount the screen
  // a second time (a second map, its first one left behind).
  // biome-ignore lint/correctness/noComponentHookFactories: called once per screen at module level, never during a render
  const Loaded = (props: Record<string, unknown>) => {
    const [direct] = useState(() => loaded() ?? null);
    return direct ? createElement(direct, props) : createElement(Lazy as ComponentType<Record<string, unknown>>, props);
  };
  return Object.assign(Loaded, { preload }) as unknown as M[K] & { preload: () => Promise<void> };
}

const AlarmReceiversPage = screen(() => import('../features/alarms/AlarmReceiversPage'), 'AlarmReceiversPage');
const AlertNumbersPage = screen(() => import('../features/alarms/AlertNumbersPage'), 'AlertNumbersPage');
const AccountDeletionPage = screen(() => import('../features/account/AccountDeletionPage'), 'AccountDeletionPage');
const AccountSettingsPage = screen(() => import('../features/account/AccountSettingsPage'), 'AccountSettingsPage');
const PurposesEditor = screen(() => import('../features/triplog/PurposesDialog'), 'PurposesEditor');
const CatalogEditor = screen(() => import('../features/units/catalog'), 'CatalogEditor');
const AlertOptOutPage = screen(() => import('../features/account/AlertOptOutPage'), 'AlertOptOutPage');
const ForgotPasswordPage = screen(() => import('../features/auth/ForgotPasswordPage'), 'ForgotPasswordPage');
const ResetPasswordPage = screen(() => import('../features/auth/ResetPasswordPage'), 'ResetPasswordPage');
const GeofenceEditPage = screen(() => import('../features/geofences/GeofenceEditPage'), 'GeofenceEditPage');
const GeofencesPage = screen(() => import('../features/geofences/GeofencesPage'), 'GeofencesPage');
const MapPage = screen(() => import('../features/map/MapPage'), 'MapPage');
const TriplogPage = screen(() => import('../features/triplog/TriplogPage'), 'TriplogPage');
const PlaceEditPage = screen(() => import('../features/places/PlaceEditPage'), 'PlaceEditPage');
const PlacesPage = screen(() => import('../features/places/PlacesPage'), 'PlacesPage');
const CongestionReportPage = screen(() => import('../features/reports/CongestionReportPage'), 'CongestionReportPage');
const ReportsPage = screen(() => import('../features/reports/ReportsPage'), 'ReportsPage');
const RegisterPage = screen(() => import('../features/registration/RegisterPage'), 'RegisterPage');
const AcceptInvitationPage = screen(() => import('../features/administration/AcceptInvitationPage'), 'AcceptInvitationPage');
const AuditLogPage = screen(() => import('../features/administration/AuditLogPage'), 'AuditLogPage');
const CustomerAccountsPage = screen(() => import('../features/administration/CustomerAccountsPage'), 'CustomerAccountsPage');
const UserAccountsPage = screen(() => import('../features/administration/UserAccountsPage'), 'UserAccountsPage');
const CarSchedulePage = screen(() => import('../features/bookings/CarSchedulePage'), 'CarSchedulePage');
const SafeHomePage = screen(() => import('../features/safe-home/SafeHomePage'), 'SafeHomePage');
const AddTerminalPage = screen(() => import('../features/units/AddTerminalPage'), 'AddTerminalPage');
const UnitEditPage = screen(() => import('../features/units/UnitEditPage'), 'UnitEditPage');
const UnitListPage = screen(() => import('../features/units/UnitListPage'), 'UnitListPage');
const loadShell = () => import('./Shell');
const Shell = screen(loadShell, 'Shell');
const CarScheduleGate = screen(loadShell, 'CarScheduleGate');
const SafeReturnHomeGate = screen(loadShell, 'SafeReturnHomeGate');
const AlertNumbersGate = screen(loadShell, 'AlertNumbersGate');

/** The signed-in screens a page load may start on, by path (the rest load when first shown). */
const SCREEN_BY_PATH: Record<string, { preload: () => Promise<void> }> = {
  [PATHS.liveMap]: MapPage,
  [PATHS.triplog]: TriplogPage,
  [PATHS.unitList]: UnitListPage,
  [PATHS.unitEdit]: UnitEditPage,
  [PATHS.places]: PlacesPage,
  [PATHS.geofences]: GeofencesPage,
  [PATHS.carSchedule]: CarSchedulePage,
  [PATHS.safeReturnHome]: SafeHomePage,
};

/**
 * Loads the code of the screen a signed-in page load starts on (and the shell around it) before the first render,
 * so a reload shows the screen at once rather than a loading line first.
 */
export async function preloadStartScreen(pathname: string, signedIn: boolean): Promise<void> {
  if (!signedIn) return;
  const start = SCREEN_BY_PATH[pathname] ?? (pathname.startsWith(`${PATHS.reports}/`) ? ReportsPage : undefined);
  await Promise.all([Shell.preload(), start?.preload()]);
}

/** Shown while a screen's code loads (the first visit to it). */
function RouteLoading() {
  const { t } = useTranslation();
  return <p aria-live="polite">{t('common.loading')}</p>;
}

/** Protected routes send anonymous visitors to / (spec §2). */
function RequireUser() {
  const session = useSession();
  return session ? <Outlet /> : <Navigate to={PATHS.login} replace />;
}

/** Login and register send a signed-in user to the map, or the trip log when the map is off. */
function AnonymousOnly() {
  const session = useSession();
  return session ? <Navigate to={landingPath(session.user)} replace /> : <Outlet />;
}

/** Add terminal: administrators and support (spec §6: support registers IMEIs). */
function RequireAdminOrSupport() {
  const session = useSession();
  return session?.user.IsAdmin || session?.user.Role === 'support' ? <Outlet /> : <NotFoundPage />;
}

/** The account's administration: its administrators, and support or a reseller who opened it (read-only). */
function RequireAdministration() {
  const session = useSession();
  return session?.user.IsAdmin || session?.user.ActingAccount ? <Outlet /> : <NotFoundPage />;
}

function RequireSupportOrReseller() {
  const session = useSession();
  return session?.user.Role === 'support' || session?.user.Role === 'reseller' ? <Outlet /> : <NotFoundPage />;
}

function RequireAdmin() {
  const session = useSession();
  return session?.user.IsAdmin ? <Outlet /> : <NotFoundPage />;
}

/** The map is a module that may be disabled per user: then the trip log is the landing. */
function MapRoute() {
  const session = useSession();
  if (session && !session.user.RealTimeMap) return <Navigate to={PATHS.triplog} replace />;
  return <MapPage />;
}

/** Places: hidden for a basic-only subscription (spec §2), which is sent to its landing page. */
function PlacesRoute() {
  const session = useSession();
  if (session?.user.userHasOnlyBasSubscription) return <Navigate to={landingPath(session.user)} replace />;
  return <Outlet />;
}

/** Unknown paths: not-found inside the shell for a signed-in user, a page of its own otherwise. */
function UnknownRoute() {
  const session = useSession();
  return session ? (
    <Shell>
      <NotFoundPage />
    </Shell>
  ) : (
    <StandaloneNotFoundPage />
  );
}

/** Lets code outside React (the API client) ask for a navigation. */
function NavigationBridge() {
  const navigate = useNavigate();
  useEffect(() => {
    const listener = (event: Event) => {
      const path = (event as CustomEvent<string>).detail;
      if (typeof path === 'string') navigate(path, { replace: true });
    };
    window.addEventListener(NAVIGATE_EVENT, listener);
    return () => window.removeEventListener(NAVIGATE_EVENT, listener);
  }, [navigate]);
  return null;
}

export function AppRoutes() {
  return (
    <>
      <NavigationBridge />
      <Suspense fallback={<RouteLoading />}>
      <Routes>
        <Route element={<AnonymousOnly />}>
          <Route index element={<LoginPage />} />
          <Route path={PATHS.register} element={<RegisterPage />} />
        </Route>
        <Route path={PATHS.forgotPassword} element={<ForgotPasswordPage />} />
        <Route path={PATHS.resetPassword} element={<ResetPasswordPage />} />
        <Route path={PATHS.accountDeletion} element={<AccountDeletionPage />} />
        <Route path={PATHS.alertOptOut} element={<AlertOptOutPage />} />
        <Route path={PATHS.acceptInvitation} element={<AcceptInvitationPage />} />
        <Route element={<RequireUser />}>
          <Route element={<Shell />}>
            <Route path={PATHS.liveMap} element={<MapRoute />} />
            <Route
              path={PATHS.carSchedule}
              element={
                <CarScheduleGate>
                  <CarSchedulePage />
                </CarScheduleGate>
              }
            />
            <Route path={PATHS.triplog} element={<TriplogPage />} />
            <Route path={PATHS.congestionReport} element={<CongestionReportPage />} />
            <Route path={PATHS.reports} element={<Navigate to={reportsPath('summary')} replace />} />
            <Route path={`${PATHS.reports}/:report`} element={<ReportsPage />} />
            <Route path={PATHS.unitList} element={<UnitListPage />} />
            <Route element={<PlacesRoute />}>
              <Route path={PATHS.places} element={<PlacesPage />} />
              <Route path={`${PATHS.placeEdit}/:placeID?`} element={<PlaceEditPage />} />
            </Route>
            <Route path={PATHS.unitEdit} element={<UnitEditPage />} />
            <Route element={<RequireAdminOrSupport />}>
              <Route path={PATHS.addTerminal} element={<AddTerminalPage />} />
            </Route>
            <Route path={PATHS.geofences} element={<GeofencesPage />} />
            <Route path={`${PATHS.geofenceEdit}/:geofenceID?`} element={<GeofenceEditPage />} />
            <Route element={<RequireAdministration />}>
              <Route path={PATHS.userAccounts} element={<UserAccountsPage />} />
              <Route path={PATHS.auditLog} element={<AuditLogPage />} />
            </Route>
            <Route element={<RequireSupportOrReseller />}>
              <Route path={PATHS.customerAccounts} element={<CustomerAccountsPage />} />
            </Route>
            <Route element={<RequireAdmin />}>
              <Route
                path={PATHS.safeReturnHome}
                element={
                  <SafeReturnHomeGate>
                    <SafeHomePage />
                  </SafeReturnHomeGate>
                }
              />
              <Route path={PATHS.accountSettings} element={<AccountSettingsPage editors={{ catalog: <CatalogEditor />, purposes: <PurposesEditor /> }} />} />
              <Route path={PATHS.alarmReceiver} element={<AlarmReceiversPage />} />
            </Route>
            <Route
              path={PATHS.alertNumbers}
              element={
                <AlertNumbersGate>
                  <AlertNumbersPage />
                </AlertNumbersGate>
              }
            />
          </Route>
        </Route>
        <Route path="*" element={<UnknownRoute />} />
      </Routes>
      </Suspense>
    </>
  );
}
