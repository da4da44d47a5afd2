import type { Fingerprint } from '../../modules/auth/model';

/** Spec §3: the trusted-browser entry matches user agent, hardware concurrency, device memory and platform. */
export function browserFingerprint(): Fingerprint {
  const nav = navigator as Navigator & { deviceMemory?: number; userAgentData?: { platform?: string } };
  return {
    userAgent: nav.userAgent.slice(0, 512),
    hardwareConcurrency: nav.hardwareConcurrency || undefined,
    deviceMemory: nav.deviceMemory,
    platform: (nav.userAgentData?.platform || nav.platform || '').slice(0, 128) || undefined,
  };
}
