# One image for every role; docker-compose.yml picks the entry point per service:
#   dist/services/catalog/main.js, dist/services/order/main.js,
#   dist/services/webhook/main.js, dist/gateway/main.js (or dist/cli/start.js for
#   everything in one process); the operator CLI is dist/cli/store-admin.js and the
#   healthcheck dist/cli/probe.js.
# Stage 1 compiles the TypeScript (npm run build: tsc, type-checked, plus the SQL
# migrations beside the code that reads them); stage 2 installs production
# dependencies only; the final image holds those and the compiled JavaScript, and runs
# it with plain node as the non-root `node` user: no TypeScript loader, no compiler.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# patches/ must be there before npm ci: the postinstall (patch-package) patches node_modules.
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY gen ./gen
COPY common ./common
COPY lean-grpc ./lean-grpc
COPY platform ./platform
COPY services ./services
COPY gateway ./gateway
COPY cli ./cli
RUN npm run build

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# package.json says "type": "module": node reads dist/**/*.js as ES modules.
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# DATA_DIR (./.data: the embedded database of `dist/cli/start.js` without DATABASE_URL,
# mail written as files) must be the node user's to write; everything else stays root's.
RUN mkdir -p .data && chown node:node .data
USER node
STOPSIGNAL SIGTERM
ENTRYPOINT ["node"]
CMD ["dist/cli/start.js"]
