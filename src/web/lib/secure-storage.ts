/**
 * Browser storage for the signed-in user (spec §3: "stored encrypted in browser storage").
 * Values are AES-GCM encrypted with a non-extractable key kept in IndexedDB, so the token never sits in
 * localStorage as plain text and script cannot read the key bytes. Without IndexedDB the key lives in memory
 * only (the session then ends with the tab).
 */

const DB_NAME = 'fleet-portal';
const STORE = 'keys';
const KEY_ID = 'storage-key';

let keyPromise: Promise<CryptoKey> | null = null;

function openDatabase(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function idbRequest<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function generateKey(): Promise<CryptoKey> {
  return crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

async function loadKey(): Promise<CryptoKey> {
  try {
    const db = await openDatabase();
    const existing = await idbRequest<CryptoKey | undefined>(db.transaction(STORE).objectStore(STORE).get(KEY_ID));
    if (existing) return existing;
    const key = await generateKey();
    await idbRequest(db.transaction(STORE, 'readwrite').objectStore(STORE).put(key, KEY_ID));
    return key;
  } catch {
    return generateKey();
  }
}

function storageKey(): Promise<CryptoKey> {
  keyPromise ??= loadKey();
  return keyPromise;
}

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

export async function encrypt(value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify(value));
  const cipher = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await storageKey(), plain));
  return `${toBase64(iv)}.${toBase64(cipher)}`;
}

export async function decrypt<T>(stored: string): Promise<T | null> {
  const [iv, cipher] = stored.split('.');
  if (!iv || !cipher) return null;
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(iv) }, await storageKey(), fromBase64(cipher));
    return JSON.parse(new TextDecoder().decode(plain)) as T;
  } catch {
    return null;
  }
}

/** Writes to localStorage (kept across browser restarts) or sessionStorage (this tab only). */
export async function saveEncrypted(name: string, value: unknown, persistent: boolean): Promise<void> {
  const text = await encrypt(value);
  (persistent ? localStorage : sessionStorage).setItem(name, text);
  (persistent ? sessionStorage : localStorage).removeItem(name);
}

export async function loadEncrypted<T>(name: string): Promise<T | null> {
  const stored = sessionStorage.getItem(name) ?? localStorage.getItem(name);
  return stored ? decrypt<T>(stored) : null;
}

export function removeEncrypted(name: string): void {
  sessionStorage.removeItem(name);
  localStorage.removeItem(name);
}
