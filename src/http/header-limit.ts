/**
 * uWS answers requests whose header section exceeds UWS_HTTP_MAX_HEADERS_SIZE itself, in HTML
 * (431), and it reads that variable once, when its addon loads: main.ts imports this module
 * before anything loads uWS. The headroom lets requests up to HEADERS_LIMIT reach the app, which
 * answers larger ones in the envelope (see server.ts); only header sections beyond
 * UWS_HEADERS_LIMIT still get uWS's HTML answer.
 */
export const HEADERS_LIMIT = 16 * 1024;
const UWS_HEADERS_LIMIT = 64 * 1024;
/** The 431 answer's message, for the REST routes and the event streams alike. */
export const HEADERS_TOO_LARGE = `The request line and headers are larger than ${HEADERS_LIMIT} bytes.`;

process.env['UWS_HTTP_MAX_HEADERS_SIZE'] ??= String(UWS_HEADERS_LIMIT);
