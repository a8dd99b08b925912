import { createRequire } from 'node:module';
import pino from 'pino';
import type PinoPretty from 'pino-pretty';

// pino-pretty (31 files) loads only where lines are pretty, not for JSON logs (issue 30: start-up).
// CommonJS, so required synchronously here.
const require = createRequire(import.meta.url);
const pretty = (options: PinoPretty.PrettyOptions): PinoPretty.PrettyStream => (require('pino-pretty') as typeof PinoPretty)(options);

export interface LoggerOptions {
  /** Human-readable lines (pino-pretty) instead of JSON: for a person watching a terminal. */
  pretty?: boolean;
  /** Where lines go; standard error by default (standard output may carry a protocol, e.g. MCP stdio). */
  destination?: pino.DestinationStream;
}

/**
 * `LOG_FORMAT=auto` (the default) is pretty exactly when standard output is a terminal: someone
 * runs `npm start` by hand. Piped or redirected output (a service manager, a log shipper, a test)
 * gets one JSON object per line.
 */
export const prettyLogs = (format: 'auto' | 'json' | 'pretty', stdoutIsTerminal: boolean): boolean =>
  format === 'pretty' || (format === 'auto' && stdoutIsTerminal);

/** Credentials and secrets are redacted wherever they appear in a logged object. */
export function createLogger(level: string, options: LoggerOptions = {}): pino.Logger {
  const destination =
    options.destination ??
    // Synchronous, so the last lines before an exit are never lost.
    (options.pretty ? pretty({ destination: 2, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }) : pino.destination(2));
  return pino(
    {
      level,
      redact: {
        paths: ['authorization', '*.authorization', 'headers.authorization', '*.headers.authorization', 'secret', '*.secret', 'key', '*.key'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
