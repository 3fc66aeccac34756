// Runs the project's node:test files inside mocha, for Stryker's mocha runner: `require("node:test")` gets
// mocha's own functions. Stryker then loads every test file once per worker, in process, and knows which
// test covers which mutant, instead of starting a Node process per test file and mutant (the tap runner):
// ten to a hundred times faster here. Loaded with `tsx/cjs` (which compiles the TypeScript tests) by
// the areas' Stryker configs; not used by `npm test`, which runs node:test itself.
// Covers what the files in the mutation areas use: test(name, [options,] fn), describe/it, before/after,
// beforeEach/afterEach. A test's options.timeout is passed on; other options and the TestContext are not.
"use strict";
const Module = require("node:module");

function withOptions(register) {
  return (name, optionsOrFn, maybeFn) => {
    const fn = typeof optionsOrFn === "function" ? optionsOrFn : maybeFn;
    const options = typeof optionsOrFn === "object" && optionsOrFn !== null ? optionsOrFn : {};
    if (options.skip || options.todo) return register.skip(name, fn ? () => fn() : undefined);
    // node:test passes a TestContext; none of the tests in the mutation areas uses it.
    const t = register(
      name,
      fn
        ? function () {
            return fn.call(this, {});
          }
        : undefined,
    );
    if (t && options.timeout !== undefined) t.timeout(options.timeout);
    return t;
  };
}

// mocha's globals exist only once mocha has loaded, after this file: each is read when a test file asks for it.
const shim = {};
const fromMocha = {
  test: () => withOptions(globalThis.it),
  it: () => withOptions(globalThis.it),
  // \`import test from "node:test"\` (the default export) is the same function.
  default: () => withOptions(globalThis.it),
  describe: () => globalThis.describe,
  suite: () => globalThis.describe,
};
for (const hook of ["before", "after", "beforeEach", "afterEach"]) fromMocha[hook] = () => globalThis[hook];
for (const [name, get] of Object.entries(fromMocha)) Object.defineProperty(shim, name, { get, enumerable: true });

const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === "node:test" || request === "test") return shim;
  return load.call(this, request, parent, isMain);
};
