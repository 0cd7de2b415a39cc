// Soketi (CommonJS) requires 'uWebSockets.js'; our build of it (uws-pack, overridden in
// package.json) is ESM-only and exports no `require` entry. Preloaded with --require, this
// resolves that one request to the same native binary uws-pack loads.
const Module = require('node:module');
const path = require('node:path');

const binary = path.join(__dirname, '../../node_modules/uWebSockets.js/dist/bin', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'uWebSockets.js' ? binary : resolve.call(this, request, ...rest);
};
