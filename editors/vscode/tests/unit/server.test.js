// Unit tests for finding the server binary (out/server.js, compiled from src/server.ts).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  expandServerPath,
  findOnPath,
  resolveServerCommand,
  startFailureMessage,
} = require('../../out/server.js');

const made = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wsite-vscode-test-'));
  made.push(dir);
  return dir;
}
test.after(() => {
  for (const dir of made) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function writeExecutable(file) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\nexit 0\n');
  fs.chmodSync(file, 0o755);
}

const base = { home: '/home/ada', env: {}, platform: 'linux' };

test('a bare name is kept for the PATH lookup', () => {
  assert.equal(expandServerPath({ ...base, setting: 'wsitec', workspaceFolder: '/ws' }), 'wsitec');
});

test('an empty setting falls back to wsitec', () => {
  assert.equal(expandServerPath({ ...base, setting: '  ' }), 'wsitec');
});

test('~ and ${userHome} expand to the home directory', () => {
  assert.equal(expandServerPath({ ...base, setting: '~/bin/wsitec' }), '/home/ada/bin/wsitec');
  assert.equal(expandServerPath({ ...base, setting: '${userHome}/bin/wsitec' }), '/home/ada/bin/wsitec');
});

test('a relative path is taken from the workspace folder', () => {
  assert.equal(
    expandServerPath({ ...base, setting: 'target/release/wsitec', workspaceFolder: '/ws' }),
    '/ws/target/release/wsitec',
  );
  assert.equal(
    expandServerPath({ ...base, setting: '${workspaceFolder}/target/release/wsitec', workspaceFolder: '/ws' }),
    '/ws/target/release/wsitec',
  );
});

test('an absolute path is kept as it is', () => {
  assert.equal(expandServerPath({ ...base, setting: '/opt/wsitec', workspaceFolder: '/ws' }), '/opt/wsitec');
});

test('Windows paths use the Windows rules', () => {
  const win = { home: 'C:\\Users\\ada', env: {}, platform: 'win32' };
  assert.equal(
    expandServerPath({ ...win, setting: 'target\\release\\wsitec.exe', workspaceFolder: 'C:\\ws' }),
    'C:\\ws\\target\\release\\wsitec.exe',
  );
  const seen = [];
  const found = findOnPath('wsitec', { Path: 'C:\\a;C:\\b', PATHEXT: '.EXE;.CMD' }, 'win32', (f) => {
    seen.push(f);
    return f === 'C:\\b\\wsitec.exe';
  });
  assert.equal(found, 'C:\\b\\wsitec.exe');
  assert.deepEqual(seen.slice(0, 2), ['C:\\a\\wsitec.exe', 'C:\\a\\wsitec.cmd']);
});

test('findOnPath finds an executable and skips a plain file', () => {
  const dir = tempDir();
  const first = path.join(dir, 'one');
  const second = path.join(dir, 'two');
  fs.mkdirSync(first);
  fs.writeFileSync(path.join(first, 'wsitec'), 'not executable');
  writeExecutable(path.join(second, 'wsitec'));
  const env = { PATH: [first, second].join(':') };
  assert.equal(findOnPath('wsitec', env, 'linux'), path.join(second, 'wsitec'));
  assert.equal(findOnPath('nothing-here', env, 'linux'), undefined);
});

test('resolveServerCommand accepts an existing relative binary', () => {
  const ws = tempDir();
  writeExecutable(path.join(ws, 'target', 'release', 'wsitec'));
  const resolved = resolveServerCommand({ ...base, setting: 'target/release/wsitec', workspaceFolder: ws });
  assert.deepEqual(resolved, { ok: true, command: path.join(ws, 'target', 'release', 'wsitec') });
});

test('a missing binary explains how to fix it', () => {
  const resolved = resolveServerCommand({ ...base, setting: 'wsitec', env: { PATH: tempDir() } });
  assert.equal(resolved.ok, false);
  assert.match(resolved.message, /`wsitec` was not found on PATH/);
  assert.match(resolved.message, /wsite\.server\.path/);
  assert.match(resolved.message, /cargo build --release -p wsitec/);

  const missingFile = resolveServerCommand({ ...base, setting: '/nowhere/wsitec' });
  assert.equal(missingFile.ok, false);
  assert.match(missingFile.message, /`\/nowhere\/wsitec` is not an executable file/);
});

test('a start failure names the command and the fix', () => {
  const message = startFailureMessage('/usr/bin/wsitec', new Error('spawn EACCES'));
  assert.match(message, /`\/usr\/bin\/wsitec lsp`/);
  assert.match(message, /spawn EACCES/);
  assert.match(message, /cargo build --release -p wsitec/);
});
