// Finding the `wsitec` binary that runs the language server, and the messages shown
// when it cannot be started. Nothing here imports `vscode`, so the unit tests in
// tests/unit/ run under plain Node.

import * as fs from 'fs';
import * as path from 'path';

export interface ResolveInput {
  /** The value of `wsite.server.path`. */
  setting: string;
  /** The first workspace folder on disk, if any. */
  workspaceFolder?: string;
  /** The user's home directory, for `~` and `${userHome}`. */
  home: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
}

export type Resolved =
  | { ok: true; command: string }
  | { ok: false; message: string };

/** Tells whether `file` is a file this process may run. */
export type IsExecutable = (file: string, platform: NodeJS.Platform) => boolean;

export const defaultIsExecutable: IsExecutable = (file, platform) => {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    if (platform !== 'win32') {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
};

const BUILD_HINT = 'build it with `cargo build --release -p wsitec` (the binary is target/release/wsitec)';

function pathApi(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

function hasSeparator(value: string, platform: NodeJS.Platform): boolean {
  return value.includes('/') || (platform === 'win32' && value.includes('\\'));
}

/**
 * Expands `~`, `${userHome}` and `${workspaceFolder}` in the setting, and makes a
 * relative path (one with a separator, like `target/release/wsitec`) absolute against
 * the workspace folder. A bare name such as `wsitec` is left for the PATH lookup.
 */
export function expandServerPath(input: ResolveInput): string {
  const p = pathApi(input.platform);
  let value = input.setting.trim();
  if (value === '') {
    value = 'wsitec';
  }
  value = value.replace(/\$\{userHome\}/g, input.home);
  if (input.workspaceFolder !== undefined) {
    value = value.replace(/\$\{workspaceFolder\}/g, input.workspaceFolder);
  }
  if (value === '~' || value.startsWith('~/') || (input.platform === 'win32' && value.startsWith('~\\'))) {
    value = p.join(input.home, value.slice(1));
  }
  if (hasSeparator(value, input.platform) && !p.isAbsolute(value) && input.workspaceFolder !== undefined) {
    value = p.resolve(input.workspaceFolder, value);
  }
  return value;
}

/** Looks a bare command name up on PATH (and PATHEXT on Windows). */
export function findOnPath(
  name: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  isExecutable: IsExecutable = defaultIsExecutable,
): string | undefined {
  const p = pathApi(platform);
  const pathVar = platform === 'win32' ? (env.Path ?? env.PATH ?? '') : (env.PATH ?? '');
  const dirs = pathVar.split(platform === 'win32' ? ';' : ':').filter((d) => d !== '');
  let suffixes = [''];
  if (platform === 'win32' && p.extname(name) === '') {
    const exts = (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '');
    suffixes = [...exts.map((e) => e.toLowerCase()), ''];
  }
  for (const dir of dirs) {
    for (const suffix of suffixes) {
      const candidate = p.join(dir, name + suffix);
      if (isExecutable(candidate, platform)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/**
 * Turns `wsite.server.path` into the command to spawn, or says why there is none.
 * The command is later run as `<command> lsp <extraArgs...>`.
 */
export function resolveServerCommand(input: ResolveInput, isExecutable: IsExecutable = defaultIsExecutable): Resolved {
  const expanded = expandServerPath(input);
  if (hasSeparator(expanded, input.platform) || pathApi(input.platform).isAbsolute(expanded)) {
    if (isExecutable(expanded, input.platform)) {
      return { ok: true, command: expanded };
    }
    return { ok: false, message: missingServerMessage(input.setting, `\`${expanded}\` is not an executable file`) };
  }
  const found = findOnPath(expanded, input.env, input.platform, isExecutable);
  if (found !== undefined) {
    return { ok: true, command: found };
  }
  return { ok: false, message: missingServerMessage(input.setting, `\`${expanded}\` was not found on PATH`) };
}

/** The message for a server binary that does not exist. */
export function missingServerMessage(setting: string, why: string): string {
  return (
    `The wsite language server could not be started: ${why}. ` +
    `Set \`wsite.server.path\` (now \`${setting}\`) to your wsitec binary, or ${BUILD_HINT}. ` +
    'Highlighting still works without it.'
  );
}

/** The message for a server binary that exists but failed to start or initialize. */
export function startFailureMessage(command: string, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return (
    `The wsite language server (\`${command} lsp\`) failed to start: ${reason}. ` +
    `Check that \`wsite.server.path\` names a wsitec that has the \`lsp\` command; ${BUILD_HINT}. ` +
    'The output channel "wsite language server" shows what it printed.'
  );
}
