FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# npm ci's prepare step also bundles the admin dashboard into dist/dashboard.
COPY dashboard ./dashboard
COPY scripts/build-dashboard.mjs scripts/write-revision.mjs ./scripts/
# The image has no .git: `slipgate --version` names the revision given here,
# docker build --build-arg SLIPGATE_REVISION=$(git rev-parse --short=12 HEAD) .
ARG SLIPGATE_REVISION=unknown
RUN npm ci && npm prune --omit=dev

FROM node:24-bookworm-slim
# tini (Debian's) is PID 1: it hands SIGTERM to node, which drains in-flight
# verifications and ends its lease, and it reaps zombies. Node as PID 1 would
# ignore a SIGTERM that arrives before slipgate installed its handler.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# /app stays root's, read-only to the process; /data is the one place it
# writes. The default engine is SQLite in that volume; set DATABASE_URL to
# postgres://… or mongodb://… to use another engine.
RUN mkdir /data && chown node:node /data
VOLUME /data
ENV NODE_ENV=production
ENV DATABASE_URL=sqlite:/data/slipgate.db
# A fresh volume's first start creates the file (serve creates a missing
# database only when asked). DATABASE_CREATE=no once it exists turns a lost
# volume into a refusal instead of an empty server.
ENV DATABASE_CREATE=yes
# Both listeners on every interface of the container's own network: what is
# reachable from outside is what you publish (-p / ports:). Publish the admin
# port (GraphQL, dashboard, /metrics) only to a trusted network.
ENV HOST=0.0.0.0
ENV PORT=3000
ENV ADMIN_HOST=0.0.0.0
ENV ADMIN_PORT=3001
USER node
EXPOSE 3000 3001
# The image has no curl: node's own fetch asks the admin listener.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.ADMIN_PORT || 3001) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains (up to REQUEST_TIMEOUT_MS, 30 s by default): give it
# `docker run --stop-timeout 45` / compose `stop_grace_period: 45s`, not
# Docker's default 10 s.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
# bin/sized-node sizes V8's heap to the container's memory limit and becomes
# node; dist/entry.cjs sizes libuv's thread pool before anything starts it, then runs the CLI.
CMD ["sh", "bin/sized-node", "dist/entry.cjs", "serve"]
