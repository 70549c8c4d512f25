import { DEFAULT_BREAKER_SETTINGS, type BreakerSettings } from '../domain/partner-health';
import { StartupError } from '../support/startup-error';

/**
 * The health window and the breakers' thresholds (issue 46; docs/partner-rail.md, "Partner health
 * and circuit breakers"), read by the worker (its evaluator and gauges) and by `routing status`:
 * PARTNER_HEALTH_WINDOW_MS, PARTNER_BREAKER_MIN_CALLS, PARTNER_BREAKER_ERROR_SHARE and
 * PARTNER_BREAKER_COOLDOWN_MS. A bad value stops the process with one line naming it.
 */

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^[0-9]{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new StartupError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

function share(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^(0|1)?(\.[0-9]+)?$|^1$/.test(raw) || !(value > 0 && value <= 1)) throw new StartupError(`${name} must be a share above 0 and at most 1 (0.5 is half the calls), got "${raw}"`);
  return value;
}

export function breakerSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): BreakerSettings {
  return {
    windowMs: wholeNumber(env, 'PARTNER_HEALTH_WINDOW_MS', DEFAULT_BREAKER_SETTINGS.windowMs, 10_000, 86_400_000),
    minCalls: wholeNumber(env, 'PARTNER_BREAKER_MIN_CALLS', DEFAULT_BREAKER_SETTINGS.minCalls, 1, 1_000_000),
    errorShare: share(env, 'PARTNER_BREAKER_ERROR_SHARE', DEFAULT_BREAKER_SETTINGS.errorShare),
    cooldownMs: wholeNumber(env, 'PARTNER_BREAKER_COOLDOWN_MS', DEFAULT_BREAKER_SETTINGS.cooldownMs, 1_000, 86_400_000),
  };
}
