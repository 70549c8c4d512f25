import pino from 'pino';

/**
 * The one logger. Authorization headers and secrets are redacted by path, and no code logs a key or
 * signing secret on purpose.
 */
export function createLogger(level = process.env.LOG_LEVEL || 'info', name = 'payments'): pino.Logger {
  return pino({
    name,
    level,
    redact: { paths: ['req.headers.authorization', 'authorization', 'secret', '*.secret', 'key', '*.test_key', '*.live_key'], censor: '[redacted]' },
  });
}

export type Logger = pino.Logger;
