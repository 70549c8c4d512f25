import type { Dispatcher } from 'undici';
import type { Environment } from '../domain/environment';

/**
 * The simulation's hook into the worker's outgoing webhook requests (createPaymentsWorker's
 * `wrapWebhookAgents`): each environment's SSRF-checked agent composed with an interceptor that hands
 * the request's headers to a hook before they are sent, so an injected defect (src/simulation/defects/
 * `unsigned-webhook`) can change what the engine sends. Without a hook a request goes out untouched.
 */

/** Answers the headers to send instead (a new object; the engine's own is left alone). */
export type HeadersHook = (headers: Record<string, string>) => Record<string, string>;

export interface SendHooks {
  /** For createPaymentsWorker's `wrapWebhookAgents`. */
  wrap(agents: Record<Environment, Dispatcher>): Record<Environment, Dispatcher>;
  /** Installs `fn` on every request from now on; returns a function that removes it. */
  beforeSend(fn: HeadersHook): () => void;
}

/** Headers as undici takes them (an object, or a flat [name, value, …] list) as one lower-cased object. */
function headerObject(headers: Dispatcher.DispatchOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) out[String(headers[i]).toLowerCase()] = String(headers[i + 1]);
    return out;
  }
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) if (value !== undefined) out[name.toLowerCase()] = String(value);
  return out;
}

export function createSendHooks(): SendHooks {
  let hook: HeadersHook | undefined;
  const intercept: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) =>
    dispatch(hook ? { ...options, headers: hook(headerObject(options.headers)) } : options, handler);
  return {
    wrap: (agents) => ({ sandbox: agents.sandbox.compose(intercept), live: agents.live.compose(intercept) }),
    beforeSend(fn) {
      hook = fn;
      return () => {
        if (hook === fn) hook = undefined;
      };
    },
  };
}
