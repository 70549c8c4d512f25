import type { Middleware } from 'koa';
import type { Environment } from '../../domain/environment';
import { ApiError } from '../../domain/errors';
import type { Scope } from '../../domain/scopes';
import { findKeyBySecret, isWellFormedKey } from '../../persistence/merchants/merchant-store';
import type { Caller, ServiceDeps } from '../../services/context';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Bearer authentication. A missing, unknown or revoked key is 401; a real key of the other
 * environment is 403 `environment_mismatch`. The listener decides the environment. A key that is not
 * of the issued shape is refused without a query; an unknown one costs at most one query per key hash
 * and minute (merchant-store.ts findKeyBySecret); a known key is checked for revocation every time.
 */
export function authenticate(deps: ServiceDeps, environment: Environment): Middleware {
  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('Authorization'));
    if (!match) throw new ApiError('invalid_api_key', 'Send your secret key as "Authorization: Bearer svc_test_…".');
    const key = isWellFormedKey(match[1]) ? await findKeyBySecret(deps.orm, match[1]) : null;
    if (!key) throw new ApiError('invalid_api_key', 'The API key is invalid or has been revoked.');
    if (key.environment !== environment) {
      const expected = environment === 'sandbox' ? 'svc_test_' : 'svc_live_';
      throw new ApiError('environment_mismatch', `This is the ${environment} API; it takes ${expected} keys.`);
    }
    const caller: Caller = { merchantId: key.merchantId, environment, keyId: key.keyId, merchantVerified: key.merchantVerified };
    ctx.state.caller = caller;
    ctx.state.scopes = key.scopes;
    await next();
  };
}

export function requireScope(scope: Scope): Middleware {
  return async (ctx, next) => {
    if (!(ctx.state.scopes as Scope[]).includes(scope)) throw new ApiError('insufficient_scope', `This key lacks the "${scope}" scope.`);
    await next();
  };
}
