# syntax=docker/dockerfile:1
FROM node:22-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY console ./console
COPY client ./client
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# Production dependencies only; --omit=optional also drops typescript, which valibot names as an
# optional peer (npm counts it optional, not dev).
RUN npm run build && npm prune --omit=dev --omit=optional
# uWebSockets.js ships a binary per platform and Node ABI: keep only this image's (linux x64).
RUN find node_modules/uWebSockets.js/dist/bin -name '*.node' ! -name "uws_linux_x64_$(node -p process.versions.modules).node" -delete

FROM node:22-slim
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
COPY --from=build /app/client/dist ./client/dist
COPY package.json ./
COPY migrations ./migrations
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--max-semi-space-size=64", "dist/main.js"]
