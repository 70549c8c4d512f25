/*
 * payment-engine needs the Node.js major version that package.json's `engines.node` names (">=24").
 * On an older Node, `npm install` (the preinstall hook), `npm start`, `npm run worker`, `npm run cli`
 * and `npm test` stop here with one line naming the version needed and how to get it, instead of a
 * stack trace from a dependency (undici, argon2) later on. src/support/node-version.ts does the same
 * for `tsx src/main.ts` run directly.
 * Written in old-syntax CommonJS, no dependencies, so that any Node from 0.12 on parses it.
 * Test hook: PAYMENTS_NODE_VERSION_FOR_TEST=20.20.2 checks that version instead of this Node's
 * (test/unit/check-node.test.ts).
 */
'use strict';
var fs = require('fs');
var path = require('path');

var FALLBACK_MAJOR = 24;

function requiredMajor() {
  try {
    var pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
    var match = /^\s*>=\s*(\d+)/.exec((pkg.engines && pkg.engines.node) || '');
    if (match) return Number(match[1]);
  } catch (e) {
    // No readable package.json: the constant below.
  }
  return FALLBACK_MAJOR;
}

function message(actual, needed) {
  return 'payment-engine needs Node.js ' + needed + ' or newer (this is ' + actual + '). ' +
    'Install Node.js ' + needed + ' from https://nodejs.org/ (or `nvm install ' + needed + '`, `fnm install ' + needed + '`), ' +
    'then run npm install again.';
}

var actual = String(process.env.PAYMENTS_NODE_VERSION_FOR_TEST || process.versions.node).replace(/^v/, '');
var needed = requiredMajor();
var major = Number(actual.split('.')[0]);
if (!(major >= needed)) {
  process.stderr.write(message(actual, needed) + '\n');
  process.exit(1);
}
