FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# npm ci's prepare step also bundles the admin dashboard into dist/dashboard.
COPY dashboard ./dashboard
COPY scripts/build-dashboard.mjs ./scripts/
RUN npm ci && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
EXPOSE 3000 3001
CMD ["node", "dist/entry.cjs", "serve"]
