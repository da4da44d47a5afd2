/**
 * Waits until `condition` holds, asking every `intervalMs`, and fails naming `what` once `timeoutMs` has passed. Tests
 * wait for what they expect with a deadline generous enough for a loaded machine rather than asserting a duration:
 * how fast something happens is measured in bench/.
 */
export async function waitFor<T>(
  what: string,
  condition: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(intervalMs);
  }
}
