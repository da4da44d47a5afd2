import { useSyncExternalStore } from 'react';
import type { SessionUser } from '../../modules/auth/model';
import { PATHS } from './paths';
import { loadEncrypted, removeEncrypted, saveEncrypted } from './secure-storage';

export type { SessionUser };

/** Spec §9: the sidebar avatar takes one of eight fixed colours, drawn at random per session. */
export const AVATAR_COLORS = ['#1565c0', '#2e7d32', '#ad1457', '#6a1b9a', '#c62828', '#00695c', '#4e342e', '#37474f'] as const;

export interface Session {
  user: SessionUser;
  avatarColor: string;
  remember: boolean;
}

const STORAGE_NAME = 'fleet.session';
let current: Session | null = null;
const listeners = new Set<() => void>();

function emit() {
  for (const listener of listeners) listener();
}

/** Reads the stored (encrypted) session once at start, before the first render. */
export async function restoreSession(): Promise<void> {
  const stored = await loadEncrypted<Session>(STORAGE_NAME);
  current = stored?.user?.token ? stored : null;
}

export function getSession(): Session | null {
  return current;
}

export async function startSession(user: SessionUser, remember: boolean): Promise<void> {
  const avatarColor = AVATAR_COLORS[Math.floor(Math.random() * AVATAR_COLORS.length)] ?? AVATAR_COLORS[0];
  current = { user, avatarColor, remember };
  await saveEncrypted(STORAGE_NAME, current, remember);
  emit();
}

/** Replaces the stored user (after /api/me) and keeps the avatar colour and remember choice. */
export async function updateSessionUser(user: SessionUser): Promise<void> {
  if (!current) return;
  current = { ...current, user: { ...user, token: current.user.token } };
  await saveEncrypted(STORAGE_NAME, current, current.remember);
  emit();
}

export function clearSession(): void {
  if (!current && !sessionStorage.getItem(STORAGE_NAME) && !localStorage.getItem(STORAGE_NAME)) return;
  current = null;
  removeEncrypted(STORAGE_NAME);
  emit();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSession(): Session | null {
  return useSyncExternalStore(subscribe, getSession, getSession);
}

/** Spec §2: the landing after login is the map, or the trip log when the map is disabled for the user. */
export function landingPath(user: SessionUser): string {
  return user.RealTimeMap ? PATHS.liveMap : PATHS.triplog;
}
