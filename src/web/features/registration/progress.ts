import { loadEncrypted, removeEncrypted, saveEncrypted } from '../../lib/secure-storage';
import type { StepId, WizardData } from './wizard-model';

/**
 * Spec §2: wizard progress, the last step included, persists locally; cleared after success or when the
 * user type changes. It holds a password, so it is stored encrypted like the session.
 */
export interface WizardProgress {
  data: WizardData;
  step: StepId;
  subsiteId: number;
}

const NAME = 'fleet.register.wizard';

export function loadProgress(): Promise<WizardProgress | null> {
  return loadEncrypted<WizardProgress>(NAME);
}

export function saveProgress(progress: WizardProgress): Promise<void> {
  return saveEncrypted(NAME, progress, true);
}

export function clearProgress(): void {
  removeEncrypted(NAME);
}
