/**
 * The login that still owes an e-mailed code, and the code's countdown (spec §4): both kept locally so a
 * reload shows the same screen with the same remaining time.
 */
export interface PendingTwoFactor {
  /** The token the login answered with: codes are asked for and checked for this login only. */
  challenge: string;
  /** "Remember me" of the login form; the session is kept across browser restarts when set. */
  remember: boolean;
}

const PENDING_KEY = 'fleet.2fa.pending';
const DEADLINE_KEY = 'fleet.2fa.deadline';

/** Spec §9: 03:00 for a first code, 00:10 after a resend. */
export const FIRST_COUNTDOWN_MS = 3 * 60 * 1000;
export const RESEND_COUNTDOWN_MS = 10 * 1000;

export function loadPending(): PendingTwoFactor | null {
  try {
    const value = JSON.parse(localStorage.getItem(PENDING_KEY) ?? 'null') as PendingTwoFactor | null;
    return value && typeof value.challenge === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function savePending(pending: PendingTwoFactor): void {
  localStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  localStorage.removeItem(DEADLINE_KEY);
}

export function clearPending(): void {
  localStorage.removeItem(PENDING_KEY);
  localStorage.removeItem(DEADLINE_KEY);
}

export function loadDeadline(): number | null {
  const value = Number(localStorage.getItem(DEADLINE_KEY));
  return Number.isFinite(value) && value > 0 ? value : null;
}

export function saveDeadline(deadline: number): void {
  localStorage.setItem(DEADLINE_KEY, String(deadline));
}

/** mm:ss of the remaining time, never below 00:00. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;
}

/**
 * "Trust this browser": the random secret the server gave this browser after a verified code. Sent with the
 * fingerprint at login; the server keeps only its hash and forgets it on a password change or on request.
 */
const DEVICE_SECRET_KEY = 'fleet.2fa.device';

export function loadDeviceSecret(): string | undefined {
  return localStorage.getItem(DEVICE_SECRET_KEY) ?? undefined;
}

export function saveDeviceSecret(secret: string): void {
  localStorage.setItem(DEVICE_SECRET_KEY, secret);
}
