/**
 * One-shot banners for the login page (spec §2: registration done, reset link sent, password changed).
 * A flow sets the flag and navigates to /; the login page shows it once.
 */
export type FlashKind = 'registered' | 'resetLinkSent' | 'passwordChanged';
const KEY = 'fleet.flash';

export function setFlash(kind: FlashKind): void {
  sessionStorage.setItem(KEY, kind);
}

export function takeFlash(): FlashKind | null {
  const value = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  return value === 'registered' || value === 'resetLinkSent' || value === 'passwordChanged' ? value : null;
}
