// Starts arecipe-lsp for .arecipe files (docs/editors.md). The server does
// the work; this only wires VS Code's language client to it over stdio.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('arecipe');
  const command = config.get('server.path', 'arecipe-lsp');
  const args = config.get('server.args', []);
  client = new LanguageClient(
    'arecipe',
    'arecipe language server',
    { command, args },
    { documentSelector: [{ scheme: 'file', language: 'arecipe' }] });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
