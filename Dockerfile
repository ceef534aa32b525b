# syntax=docker/dockerfile:1
# Node 26, the active LTS line (the suite also runs on Node 20.19+: see README, Runtime).
# Toolchain for better-sqlite3, which compiles from source where no prebuilt binary fits.
FROM node:26-slim AS toolchain
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./

# Build stage: all dependencies, compile.
FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json nest-cli.json ./
COPY src ./src
RUN npm run build

# Production dependencies only: no dev dependencies, and no optional ones, which would bring
# TypeScript through TypeORM's optional ts-node (nothing the service uses is optional). Of
# better-sqlite3's build only the addon stays (its sources and objects are 25 MB).
# test/ops/deploy/start-sequence.js runs this stage's RUN lines as they are here.
FROM toolchain AS deps
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src build/deps build/Release/obj build/Release/obj.target build/Release/.deps \
           build/Release/sqlite3.a build/Release/test_extension.node

# Runtime stage: compiled code and production dependencies only, as the unprivileged node user.
FROM node:26-slim
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app
COPY --from=deps --chown=node:node /app/package.json ./
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Migrations run at start under a database lock, so several replicas may start at once.
# SIGTERM (docker stop) drains the requests in flight within SHUTDOWN_TIMEOUT (default 10 s).
# The V8 heap settings of `npm start` (README "Memory"): a 512 MiB heap limit, which also makes
# V8 grow the heap in small steps, and 8 MiB young-generation semi-spaces.
CMD ["node", "--max-old-space-size=512", "--max-semi-space-size=8", "dist/main.js"]
