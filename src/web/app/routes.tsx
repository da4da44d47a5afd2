import { useEffect } from 'react';
import { Navigate, Outlet, Route, Routes, useNavigate } from 'react-router';
import { AlarmReceiversPage } from '../features/alarms/AlarmReceiversPage';
import { AlertNumbersPage } from '../features/alarms/AlertNumbersPage';
import { AccountDeletionPage } from '../features/account/AccountDeletionPage';
import { AccountSettingsPage } from '../features/account/AccountSettingsPage';
import { PurposesEditor } from '../features/triplog/PurposesDialog';
import { CatalogEditor } from '../features/units/catalog';
import { AlertOptOutPage } from '../features/account/AlertOptOutPage';
import { ForgotPasswordPage } from '../features/auth/ForgotPasswordPage';
import { LoginPage } from '../features/auth/LoginPage';
import { ResetPasswordPage } from '../features/auth/ResetPasswordPage';
import { NotFoundPage, StandaloneNotFoundPage } from '../components/NotFoundPage';
import { GeofenceEditPage } from '../features/geofences/GeofenceEditPage';
import { GeofencesPage } from '../features/geofences/GeofencesPage';
import { MapPage } from '../features/map/MapPage';
import { TriplogPage } from '../features/triplog/TriplogPage';
import { PlaceEditPage } from '../features/places/PlaceEditPage';
import { PlacesPage } from '../features/places/PlacesPage';
import { CongestionReportPage } from '../features/reports/CongestionReportPage';
import { ReportsPage } from '../features/reports/ReportsPage';
import { RegisterPage } from '../features/registration/RegisterPage';
import { AcceptInvitationPage } from '../features/administration/AcceptInvitationPage';
import { AuditLogPage } from '../features/administration/AuditLogPage';
import { CustomerAccountsPage } from '../features/administration/CustomerAccountsPage';
import { UserAccountsPage } from '../features/administration/UserAccountsPage';
import { CarSchedulePage } from '../features/bookings/CarSchedulePage';
import { AddTerminalPage } from '../features/units/AddTerminalPage';
import { UnitEditPage } from '../features/units/UnitEditPage';
import { UnitListPage } from '../features/units/UnitListPage';
import { NAVIGATE_EVENT } from '../lib/api';
import { PATHS, reportsPath } from '../lib/paths';
import { landingPath, useSession } from '../lib/session';
import { useAlertNumbersAllowed, useCarScheduleEnabled, useSafeReturnHomeEnabled } from './queries';
import { Shell } from './Shell';

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

/** Car schedule: off on the server (or basic-only subscription) sends the user to the map. */
function CarScheduleRoute() {
  const session = useSession();
  const enabled = useCarScheduleEnabled();
  if (enabled.isPending) return null;
  if (enabled.data !== true || session?.user.userHasOnlyBasSubscription) return <Navigate to={PATHS.liveMap} replace />;
  return <CarSchedulePage />;
}

function SafeReturnHomeRoute() {
  const session = useSession();
  const enabled = useSafeReturnHomeEnabled();
  if (enabled.isPending) return null;
  if (enabled.data !== true || session?.user.userHasOnlyBasSubscription) return <Navigate to={PATHS.liveMap} replace />;
  return <NotFoundPage />;
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
  const alertNumbersAllowed = useAlertNumbersAllowed();
  return (
    <>
      <NavigationBridge />
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
            <Route path={PATHS.carSchedule} element={<CarScheduleRoute />} />
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
              <Route path={PATHS.safeReturnHome} element={<SafeReturnHomeRoute />} />
              <Route path={PATHS.accountSettings} element={<AccountSettingsPage editors={{ catalog: <CatalogEditor />, purposes: <PurposesEditor /> }} />} />
              <Route path={PATHS.alarmReceiver} element={<AlarmReceiversPage />} />
            </Route>
            {/* Exists only for the parent account named in configuration. */}
            {alertNumbersAllowed && <Route path={PATHS.alertNumbers} element={<AlertNumbersPage />} />}
          </Route>
        </Route>
        <Route path="*" element={<UnknownRoute />} />
      </Routes>
    </>
  );
}
