// Preloaded into the servers the WebSocket bench starts (never into production): SIGUSR2 runs a
// full garbage collection, so the bench reads resident memory without the young garbage of the
// handshakes it just made. `--expose-gc` cannot go in NODE_OPTIONS; set from here it still works.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc');
process.on('SIGUSR2', () => collect());
