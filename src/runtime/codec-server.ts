import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { Config } from '../config';
import { StartupError } from '../support/startup-error';
import { bearerMatches, secretEquals } from '../support/bearer-token';
import { createLimitedServer, DEFAULT_SERVER_LIMITS, type ServerLimits } from '../http/server-limits';

/**
 * The Temporal remote codec endpoint (POST /decode and /encode, `{"payloads":[{metadata, data}]}`
 * with base64 bytes), so the Temporal Web UI shows an operator the decoded payloads that history
 * keeps encrypted (temporal/payload-codec.ts). The browser calls it, so it answers CORS only for the
 * UI's origins. Every call needs its token (issue 47, finding 8), loopback callers included: either
 * `Authorization: Bearer <token>`, or the token as the path's first segment (`POST /<token>/decode`),
 * which is how the Temporal UI sends it: the UI has no setting for a static header (its "pass access
 * token" forwards the UI's own OIDC token, which a dev server's UI has none of), so `npm start` gives
 * it `--ui-codec-endpoint http://127.0.0.1:CODEC_PORT/<token>` (./codec-token.ts). Bound to 127.0.0.1
 * by default; any other address needs CODEC_AUTH_TOKEN set (not a generated one), and in production
 * it sits behind the same single sign-on as the UI (docs/security.md). The HTTP_* limits of the API
 * listeners apply (src/http/server-limits.ts).
 */
export interface CodecServerOptions {
  codec: PayloadCodec;
  host: string;
  port: number;
  /** Origins of the Temporal UI allowed to call it. */
  corsOrigins: string[];
  /** Every call carries it (bearer header or first path segment): CODEC_AUTH_TOKEN, else generated at start. */
  authToken: string;
  /** Whether `authToken` was set by the operator (CODEC_AUTH_TOKEN); a non-loopback host needs one. */
  tokenFromSettings?: boolean;
  /** The HTTP_* limits; the defaults when not given. */
  limits?: ServerLimits;
}

export interface CodecServer {
  /** The endpoint's base URL (no token). */
  url: string;
  /** The URL a Temporal UI is given (`--ui-codec-endpoint`): `url` with the token as its path. Never log it. */
  uiEndpoint: string;
  close(): Promise<void>;
}

interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
}

const BODY_LIMIT_BYTES = 8 * 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function fromJson(p: JsonPayload): Payload {
  if (p === null || typeof p !== 'object') throw new RequestError(400, 'invalid_payload', 'each payload must be an object');
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) {
    if (typeof v !== 'string') throw new RequestError(400, 'invalid_payload', 'payload metadata values must be base64 strings');
    metadata[k] = Buffer.from(v, 'base64');
  }
  if (p.data != null && typeof p.data !== 'string') throw new RequestError(400, 'invalid_payload', 'payload data must be a base64 string');
  return { metadata, data: Buffer.from(p.data ?? '', 'base64') };
}

function toJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        reject(new RequestError(413, 'body_too_large', `the body exceeds ${BODY_LIMIT_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The route and the token a request carries: `/<token>/decode` or `/decode` with `Authorization: Bearer <token>`. */
function routeOf(url: string | undefined): { route: 'decode' | 'encode' | undefined; pathToken: string | undefined } {
  const path = (url ?? '').split('?')[0].replace(/\/+$/, '');
  const match = /^(?:\/(.+))?\/(decode|encode)$/.exec(path);
  return match ? { route: match[2] as 'decode' | 'encode', pathToken: match[1] } : { route: undefined, pathToken: undefined };
}

export function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  if (!options.authToken) throw new StartupError('the codec endpoint needs a token (CODEC_AUTH_TOKEN, or one generated at start)');
  if (!LOOPBACK.has(options.host) && !options.tokenFromSettings) {
    throw new StartupError(`CODEC_HOST=${options.host} is not a loopback address: set CODEC_AUTH_TOKEN, and put the endpoint behind the Temporal UI's single sign-on`);
  }
  const allowed = new Set(options.corsOrigins);
  const server = createLimitedServer((req, res) => {
    const origin = req.headers.origin;
    const send = (status: number, body?: unknown) => {
      res.statusCode = status;
      if (origin && allowed.has(origin)) {
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Access-Control-Allow-Credentials', 'true');
        res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
        res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      }
      res.setHeader('Vary', 'Origin');
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      if (body === undefined) return res.end();
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(body));
    };
    const fail = (error: unknown) => {
      const e = error instanceof RequestError ? error : new RequestError(400, 'codec_failed', error instanceof Error ? error.message : 'the payloads could not be processed');
      send(e.status, { error: { type: 'invalid_request_error', code: e.code, message: e.message } });
    };
    const { route, pathToken } = routeOf(req.url);
    if (origin && !allowed.has(origin)) return fail(new RequestError(403, 'origin_not_allowed', 'this origin may not call the codec endpoint'));
    if (req.method === 'OPTIONS') return send(route ? 204 : 404);
    if (!route) return fail(new RequestError(404, 'not_found', 'POST /decode or /encode'));
    if (req.method !== 'POST') return fail(new RequestError(405, 'method_not_allowed', 'POST /decode or /encode'));
    const authorized = pathToken !== undefined ? secretEquals(pathToken, options.authToken) : bearerMatches(req.headers.authorization, options.authToken);
    if (!authorized) return fail(new RequestError(401, 'unauthorized', 'the codec token is required (a bearer token, or the endpoint URL the Temporal UI was given)'));
    readBody(req)
      .then(async (text) => {
        let body: { payloads?: unknown };
        try {
          body = JSON.parse(text);
        } catch {
          throw new RequestError(400, 'invalid_json', 'the body is not JSON');
        }
        if (!body || !Array.isArray(body.payloads)) throw new RequestError(400, 'invalid_body', 'the body must be {"payloads":[...]}');
        const payloads = body.payloads.map((p) => fromJson(p as JsonPayload));
        const result = route === 'decode' ? await options.codec.decode(payloads) : await options.codec.encode(payloads);
        send(200, { payloads: result.map(toJson) });
      })
      .catch(fail);
  }, options.limits ?? DEFAULT_SERVER_LIMITS, 'api');
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(':') ? `[${options.host}]` : options.host;
      const url = `http://${host}:${port}`;
      resolve({ url, uiEndpoint: `${url}/${options.authToken}`, close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** Where the local Temporal UI finds the codec endpoint (`--ui-codec-endpoint`), token included, when it runs. */
export function localCodecEndpoint(config: Config, token: string | undefined): string | undefined {
  return config.codec.port > 0 && token ? `http://127.0.0.1:${config.codec.port}/${token}` : undefined;
}

/** CODEC_CORS_ORIGINS, else the local dev server's UI. */
export function codecCorsOrigins(config: Config): string[] {
  return config.codec.corsOrigins ?? [`http://127.0.0.1:${config.temporalUiPort}`, `http://localhost:${config.temporalUiPort}`];
}
