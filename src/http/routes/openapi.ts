import Router from '@koa/router';
import { OPENAPI_PATH, openApiDocument } from '../openapi/document';

/**
 * `GET /v1/openapi.json` (INTERFACE.md "Web"): the OpenAPI 3.1 document of both listeners, no API key
 * needed. Mounted on the /v1 router before authentication, so it carries the same headers as every
 * /v1 answer (Request-Id, RateLimit-* counted by address, no-store).
 */
export function openApiRoutes(): Router {
  const router = new Router();
  const text = JSON.stringify(openApiDocument());
  router.get(OPENAPI_PATH, (ctx) => {
    ctx.type = 'application/json';
    ctx.body = text;
  });
  return router;
}
