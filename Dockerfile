# One container: web app, API, tracker gateway ports and jobs. Data (embedded PostgreSQL) lives in the one volume
# /app/data. `bun run scripts/check-container.ts` performs these build and start steps without Docker (CI runs it),
# so keep every step to the instructions it knows: FROM, WORKDIR, ENV, COPY (--from, --chown), RUN, USER, VOLUME,
# EXPOSE, HEALTHCHECK and CMD, with paths in RUN relative to WORKDIR.

# The web build needs the development packages (bundler plugins, map outlines).
FROM oven/bun:1.4.5 AS build
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile
COPY . .
RUN bun run scripts/build-web.ts && mkdir -p data

# The packages the running portal needs, and nothing else.
FROM oven/bun:1.4.5 AS production-dependencies
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production

FROM oven/bun:1.4.5-slim
WORKDIR /app
# The demo's password is public and the API docs describe every endpoint: both off unless asked for.
ENV NODE_ENV=production DATA_DIR=/app/data PORT=3000 DEMO=0 API_DOCS=0
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/bun.lock /app/tsconfig.json ./
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/src ./src
COPY --from=build --chown=bun:bun /app/data ./data
# The image's unprivileged user (uid 1000) owns only the data volume.
USER bun
VOLUME ["/app/data"]
# HTTP (web + API), Teltonika TCP/UDP, GT06 TCP, OsmAnd HTTP.
EXPOSE 3000 5027/tcp 5027/udp 5023 5055
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s CMD bun -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["bun", "run", "src/main.ts"]
