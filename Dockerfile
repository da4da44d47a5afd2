# One container: web app, API, tracker gateway ports and jobs. Data (embedded PostgreSQL) lives in /app/data.
FROM oven/bun:1 AS build
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production=false
COPY . .
RUN bun run scripts/build-web.ts && bun install --frozen-lockfile --production

FROM oven/bun:1
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/app/data
COPY --from=build /app /app
VOLUME ["/app/data"]
# HTTP (web + API), Teltonika TCP/UDP, GT06 TCP, OsmAnd HTTP.
EXPOSE 3000 5027/tcp 5027/udp 5023 5055
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s CMD bun -e "fetch('http://127.0.0.1:3000/api/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["bun", "run", "src/main.ts"]
