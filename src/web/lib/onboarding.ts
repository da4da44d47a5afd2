/**
 * Car info onboarding (spec §2 "car info onboarding"): after a registration the shell opens the guided form by itself
 * once the new administrator is signed in. The registration asks for it here (kept in this tab's session storage, so it
 * survives the way to the login page); the shell takes the request once. A unit added later waits in the unit list's
 * "car info" button, which add terminal does not interrupt with a dialog over its first-position wait.
 */
const KEY = 'fleet.carInfoOnboarding';
const EVENT = 'fleet:car-info-onboarding';

export function requestCarInfoOnboarding(): void {
  sessionStorage.setItem(KEY, '1');
  window.dispatchEvent(new Event(EVENT));
}

/** Whether a flow asked for the form; the request is used up. */
export function takeCarInfoOnboarding(): boolean {
  const asked = sessionStorage.getItem(KEY) === '1';
  sessionStorage.removeItem(KEY);
  return asked;
}

/** Calls `listener` whenever a flow asks for the form while the shell is shown. */
export function onCarInfoOnboarding(listener: () => void): () => void {
  window.addEventListener(EVENT, listener);
  return () => window.removeEventListener(EVENT, listener);
}
