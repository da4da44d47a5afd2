/** What the command queue publishes about a unit's commands. */
declare module '../../lib/events' {
  interface EventMap {
    'command.queued': { commandId: number; unitId: number };
    'command.result': { commandId: number; unitId: number; status: 'answered' | 'no_response' | 'expired'; response: string | null };
  }
}

export {};
