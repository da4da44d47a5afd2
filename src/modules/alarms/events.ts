import type { AlarmClass } from '../alarm-receivers/model';
import type { AlarmType } from './model';

/** An alarm was raised (a new episode), published through the outbox in the alarm's own transaction. */
export interface AlarmRaised {
  alarmId: number;
  accountId: number;
  unitId: number;
  type: AlarmType;
  class: AlarmClass;
  /** ISO instant of the event that raised it. */
  at: string;
}

/** What the alarms module publishes. */
declare module '../../lib/events' {
  interface EventMap {
    'alarm.raised': AlarmRaised;
  }
}
