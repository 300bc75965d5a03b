# One image for every role; the compose file picks the entry point.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY gen ./gen
COPY services ./services
COPY gateway ./gateway
COPY cli ./cli
USER node
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["cli/start.ts"]
