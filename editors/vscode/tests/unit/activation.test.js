// Loads the compiled extension (out/extension.js) against a small stand-in for the
// `vscode` module, so activation can be tested without VS Code: the command and the
// folding provider are registered, and a missing server binary gives one clear error
// (and no client) instead of a crash.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const Module = require('node:module');
const path = require('node:path');

function makeVscode(settings) {
  const calls = { commands: new Map(), folding: [], errors: [], statusMessages: [], output: [] };
  const disposable = () => ({ dispose() {} });
  const known = {
    window: {
      createOutputChannel: () => ({
        appendLine: (line) => calls.output.push(line),
        append() {},
        show() {},
        dispose() {},
      }),
      showErrorMessage: (message, ...items) => {
        calls.errors.push({ message, items });
        return Promise.resolve(undefined);
      },
      setStatusBarMessage: (message) => {
        calls.statusMessages.push(message);
        return disposable();
      },
    },
    workspace: {
      workspaceFolders: undefined,
      getConfiguration: () => ({ get: (key, fallback) => (key in settings ? settings[key] : fallback) }),
      onDidChangeConfiguration: disposable,
      createFileSystemWatcher: () => ({ dispose() {} }),
    },
    commands: {
      registerCommand: (id, fn) => {
        calls.commands.set(id, fn);
        return disposable();
      },
      executeCommand: () => Promise.resolve(),
    },
    languages: {
      registerFoldingRangeProvider: (selector, provider) => {
        calls.folding.push({ selector, provider });
        return disposable();
      },
    },
    FoldingRange: class {
      constructor(start, end, kind) {
        Object.assign(this, { start, end, kind });
      }
    },
    FoldingRangeKind: { Comment: 1, Imports: 2, Region: 3 },
  };
  // vscode-languageclient subclasses and reads many API classes when it loads;
  // any other capitalised name is an empty class, anything else undefined.
  const api = new Proxy(known, {
    get(target, prop) {
      if (prop in target) return target[prop];
      if (typeof prop === 'string' && /^[A-Z]/.test(prop)) {
        target[prop] = class {};
        return target[prop];
      }
      return undefined;
    },
  });
  return { api, calls };
}

function loadExtension(api) {
  const originalLoad = Module._load;
  Module._load = function (request, ...rest) {
    return request === 'vscode' ? api : originalLoad.call(this, request, ...rest);
  };
  try {
    const file = path.join(__dirname, '..', '..', 'out', 'extension.js');
    delete require.cache[require.resolve(file)];
    return require(file);
  } finally {
    Module._load = originalLoad;
  }
}

test('activation without a server binary reports it once and keeps the rest working', async () => {
  const { api, calls } = makeVscode({ 'server.path': '/nonexistent/wsitec', 'server.extraArgs': [] });
  const extension = loadExtension(api);
  const context = { subscriptions: [] };
  await extension.activate(context);

  assert.ok(calls.commands.has('wsite.restartServer'), 'restart command registered');
  assert.equal(calls.folding.length, 1);
  assert.deepEqual(calls.folding[0].selector, { language: 'wsite' });

  assert.equal(calls.errors.length, 1);
  const { message, items } = calls.errors[0];
  assert.match(message, /`\/nonexistent\/wsitec` is not an executable file/);
  assert.match(message, /wsite\.server\.path/);
  assert.match(message, /cargo build --release -p wsitec/);
  assert.deepEqual(items, ['Open Settings', 'Show Output']);

  // The restart command tries again (and reports again) rather than throwing.
  await calls.commands.get('wsite.restartServer')();
  assert.equal(calls.errors.length, 2);
  assert.deepEqual(calls.statusMessages, []);

  // Folding goes through the provider with VS Code's FoldingRange.
  const doc = { getText: () => 'page P {\n  text "x"\n}\n' };
  const ranges = calls.folding[0].provider.provideFoldingRanges(doc);
  assert.deepEqual(ranges.map((r) => [r.start, r.end, r.kind]), [[0, 1, undefined]]);

  await extension.deactivate();
});
