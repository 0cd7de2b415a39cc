// Prints the HTTP routes a server registers, as JSON `["METHOD scope path", ...]`; the
// authorization matrix runs it as its own process (the server's modules need Node's loader).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'engage-routes-'));
const server = await startServer(loadConfig({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), createLogger('silent'));
process.stdout.write(JSON.stringify(server.routes.map((r) => `${r.method} ${r.scope ?? 'app'} ${r.path}`)));
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
