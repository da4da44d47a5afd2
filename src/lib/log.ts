/** A small structured logger: one JSON line per event in production, readable lines in development. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: LogLevel, json = process.env.NODE_ENV === 'production'): Logger {
  const write = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (order[at] < order[level]) return;
    const line = json
      ? JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields })
      : `${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} ${message}${fields ? ` ${JSON.stringify(fields, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}` : ''}`;
    (at === 'error' || at === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
