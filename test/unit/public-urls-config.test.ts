import { loadConfig } from '../../src/config';

/** How browsers reach the web port, the sandbox listener and the Temporal UI (README, Configuration). */
test('defaults follow HOST and the ports; a wildcard HOST (0.0.0.0, ::) becomes 127.0.0.1, which a browser can open', () => {
  const urls = (env: NodeJS.ProcessEnv) => {
    const c = loadConfig(env);
    return { web: c.webPublicUrl, sandbox: c.sandboxPublicUrl, ui: c.temporalUiUrl };
  };
  expect(urls({})).toEqual({ web: 'http://127.0.0.1:3002', sandbox: 'http://127.0.0.1:3000', ui: 'http://127.0.0.1:8233' });
  expect(urls({ HOST: '0.0.0.0', PORT: '4000', WEB_PORT: '4002', TEMPORAL_UI_PORT: '9000' })).toEqual({ web: 'http://127.0.0.1:4002', sandbox: 'http://127.0.0.1:4000', ui: 'http://127.0.0.1:9000' });
  expect(urls({ HOST: '::' }).sandbox).toBe('http://127.0.0.1:3000');
  expect(urls({ HOST: '192.168.1.20' })).toEqual({ web: 'http://192.168.1.20:3002', sandbox: 'http://192.168.1.20:3000', ui: 'http://127.0.0.1:8233' });
});

test('set explicitly, each is taken as given without a trailing slash', () => {
  const c = loadConfig({ HOST: '0.0.0.0', WEB_PUBLIC_URL: 'https://pay.example/', SANDBOX_PUBLIC_URL: 'https://sandbox.api.example//', TEMPORAL_UI_URL: 'https://temporal.internal/' });
  expect({ web: c.webPublicUrl, sandbox: c.sandboxPublicUrl, ui: c.temporalUiUrl }).toEqual({ web: 'https://pay.example', sandbox: 'https://sandbox.api.example', ui: 'https://temporal.internal' });
});
