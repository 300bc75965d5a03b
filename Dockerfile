# One image for every role; docker-compose.yml picks the entry point per service:
#   services/catalog/main.ts, services/order/main.ts, services/webhook/main.ts,
#   gateway/main.ts (or cli/start.ts for everything in one process).
# Stage 1 checks the code against the committed generated protobuf code and types;
# stage 2 keeps production dependencies only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# patches/ must be there before npm ci: the postinstall (patch-package) patches node_modules.
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY tsconfig.json buf.yaml buf.gen.yaml ./
COPY proto ./proto
COPY gen ./gen
COPY common ./common
COPY lean-grpc ./lean-grpc
COPY services ./services
COPY gateway ./gateway
COPY cli ./cli
RUN npx tsc --noEmit

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/gen ./gen
COPY --from=build /app/common ./common
COPY --from=build /app/lean-grpc ./lean-grpc
COPY --from=build /app/services ./services
COPY --from=build /app/gateway ./gateway
COPY --from=build /app/cli ./cli
USER node
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["cli/start.ts"]
