# Image for the API (`node dist/src/main.js`), the worker (`node dist/workers/main.js`) and the
# one-shot migrations (`node dist/src/persistence/migrate.js`, as the schema owner); see docker-compose.yml.
# Talks to an external PostgreSQL and Temporal server; runs as the unprivileged `node` user with
# NODE_ENV=production (DATABASE_URL, TEMPORAL_ADDRESS and SECRETS_KEY are then required).

FROM node:24-slim AS build
WORKDIR /app
# The Temporal CLI/test-server binaries are only needed for local dev and tests (nothing downloads
# them at run time either: src/temporal/dev-server.ts); promtool only for the tests.
ENV TEMPORAL_INSTALL_SKIP=1 PROMTOOL_INSTALL_SKIP=1
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:24-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    TEMPORAL_INSTALL_SKIP=1 \
    PROMTOOL_INSTALL_SKIP=1 \
    HOST=0.0.0.0 \
    DATA_DIR=/app/.data
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force \
    && mkdir -m 0700 -p /app/.data && chown node:node /app/.data
COPY --from=build /app/dist ./dist
# The reference site's guides, scripts and stylesheet (src/web/docs/: not TypeScript, read at run time).
COPY --from=build /app/src/web/docs ./src/web/docs
USER node
EXPOSE 3000 3001 3002 3003
CMD ["node", "dist/src/main.js"]
