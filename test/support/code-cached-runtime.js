const vm = require('node:vm');
const { createHash } = require('node:crypto');
const Runtime = require('jest-runtime').default;

/**
 * jest's runtime, with V8's code cache kept across the test files of one jest worker process.
 *
 * jest gives every test file a fresh module registry, so every module a file loads is compiled again
 * (jest-runtime's `vm.compileFunction`): an integration file loads the API, the ORM and Temporal's
 * client and worker, and compiling them was the largest single cost a file paid before its first test
 * (issue 42). Here the first compilation of a module's code in a worker process asks V8 for its code
 * cache, and each later compilation of the same code (same file name, same source) hands it back, so
 * V8 skips the parse and the eager compilation. What runs is unchanged: V8 checks the cache against the
 * source and its own flags and compiles afresh when it rejects one (`cachedDataRejected`), and the
 * function is still compiled in the file's own context.
 *
 * Only the worker process's memory holds the cache; nothing is written to disk.
 */
const cache = new Map();
const compileFunction = vm.compileFunction;

function keyOf(code, filename) {
  return `${filename}\0${createHash('sha1').update(code).digest('base64')}`;
}

vm.compileFunction = function compileFunctionWithCodeCache(code, params, options) {
  if (!options || typeof options.filename !== 'string' || options.cachedData !== undefined || options.produceCachedData) {
    return compileFunction.call(this, code, params, options);
  }
  const key = keyOf(code, options.filename);
  const cachedData = cache.get(key);
  if (cachedData) {
    const fn = compileFunction.call(this, code, params, { ...options, cachedData });
    if (!fn.cachedDataRejected) return fn;
    cache.delete(key);
    return fn;
  }
  const fn = compileFunction.call(this, code, params, { ...options, produceCachedData: true });
  if (fn.cachedDataProduced && fn.cachedData) cache.set(key, fn.cachedData);
  return fn;
};

module.exports = Runtime;
