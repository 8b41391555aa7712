// The wsite extension: registers brace folding and starts `wsitec lsp` (stdio)
// through vscode-languageclient, which then provides diagnostics, hover, go to
// definition, references, completion, outline, code actions and formatting.

import * as os from 'os';
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from 'vscode-languageclient/node';
import { foldingRanges } from './folding';
import { resolveServerCommand, startFailureMessage } from './server';

const LANGUAGE_ID = 'wsite';
const CLIENT_ID = 'wsite';
const CLIENT_NAME = 'wsite language server';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;
let watcher: vscode.FileSystemWatcher | undefined;
// Starts and stops run one after another, so a quick second restart or a
// settings change during a start never leaves two servers running.
let queue: Promise<void> = Promise.resolve();

function enqueue(task: () => Promise<void>): Promise<void> {
  queue = queue.then(task, task);
  return queue;
}

export function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel(CLIENT_NAME);
  context.subscriptions.push(output);

  context.subscriptions.push(
    vscode.languages.registerFoldingRangeProvider({ language: LANGUAGE_ID }, new BraceFoldingProvider()),
  );

  context.subscriptions.push(
    vscode.commands.registerCommand('wsite.restartServer', () =>
      enqueue(async () => {
        await stopClient();
        const started = await startClient();
        if (started) {
          vscode.window.setStatusBarMessage('wsite language server restarted', 3000);
        }
      }),
    ),
  );

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('wsite.server')) {
        void enqueue(async () => {
          await stopClient();
          await startClient();
        });
      }
    }),
  );

  return enqueue(async () => {
    await startClient();
  });
}

export function deactivate(): Promise<void> {
  return enqueue(stopClient);
}

/** Starts the server; on failure shows why and returns false (highlighting still works). */
async function startClient(): Promise<boolean> {
  const config = vscode.workspace.getConfiguration('wsite');
  const setting = config.get<string>('server.path', 'wsitec');
  const rawArgs: unknown = config.get('server.extraArgs', []);
  const extraArgs = Array.isArray(rawArgs) ? rawArgs.filter((a): a is string => typeof a === 'string') : [];
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;

  const resolved = resolveServerCommand({
    setting,
    workspaceFolder: folder,
    home: os.homedir(),
    env: process.env,
    platform: process.platform,
  });
  if (!resolved.ok) {
    reportStartError(resolved.message);
    return false;
  }

  const args = ['lsp', ...extraArgs];
  output?.appendLine(`Starting ${[resolved.command, ...args].join(' ')}`);
  const serverOptions: ServerOptions = {
    command: resolved.command,
    args,
    // No `transport`: vscode-languageclient would add `--stdio`; plain stdio it is.
    options: { cwd: folder },
  };

  const errorHandler = new ServerErrorHandler();
  watcher = vscode.workspace.createFileSystemWatcher('**/*.wsite');
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: LANGUAGE_ID },
      { scheme: 'untitled', language: LANGUAGE_ID },
    ],
    synchronize: { fileEvents: watcher },
    outputChannel: output,
    errorHandler,
    // A server that cannot initialize is reported once, by reportStartError.
    initializationFailedHandler: () => false,
  };

  const candidate = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  client = candidate;
  try {
    await candidate.start();
    errorHandler.running = true;
    return true;
  } catch (error) {
    if (client === candidate) {
      client = undefined;
    }
    await disposeQuietly(candidate);
    disposeWatcher();
    reportStartError(startFailureMessage(resolved.command, error));
    return false;
  }
}

async function stopClient(): Promise<void> {
  const current = client;
  client = undefined;
  if (current !== undefined) {
    await disposeQuietly(current);
  }
  disposeWatcher();
}

async function disposeQuietly(c: LanguageClient): Promise<void> {
  try {
    await c.dispose(2000);
  } catch {
    // A client that never started cannot stop cleanly; nothing is left to free.
  }
}

function disposeWatcher(): void {
  watcher?.dispose();
  watcher = undefined;
}

function reportStartError(message: string): void {
  output?.appendLine(message);
  void vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output').then((choice) => {
    if (choice === 'Open Settings') {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'wsite.server');
    } else if (choice === 'Show Output') {
      output?.show(true);
    }
  });
}

/**
 * Restarts a server that crashes after a good start (at most 4 times in 3 minutes),
 * and never restarts one that dies while starting: that is reported by
 * reportStartError instead of a loop of restarts.
 */
class ServerErrorHandler implements ErrorHandler {
  running = false;
  private crashes: number[] = [];

  error(_error: Error, _message: unknown, count: number | undefined): ErrorHandlerResult {
    return { action: count !== undefined && count <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown };
  }

  closed(): CloseHandlerResult {
    if (!this.running) {
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < 3 * 60 * 1000);
    this.crashes.push(now);
    if (this.crashes.length <= 4) {
      return { action: CloseAction.Restart };
    }
    return {
      action: CloseAction.DoNotRestart,
      message:
        'The wsite language server stopped 5 times in 3 minutes and will not be restarted. ' +
        'See the "wsite language server" output, then run "wsite: Restart language server".',
    };
  }
}

class BraceFoldingProvider implements vscode.FoldingRangeProvider {
  provideFoldingRanges(document: vscode.TextDocument): vscode.FoldingRange[] {
    return foldingRanges(document.getText()).map((f) => {
      const kind =
        f.kind === 'comment'
          ? vscode.FoldingRangeKind.Comment
          : f.kind === 'region'
            ? vscode.FoldingRangeKind.Region
            : undefined;
      return new vscode.FoldingRange(f.start, f.end, kind);
    });
  }
}
