// Tokenizes a file with a TextMate grammar the way VS Code does
// (vscode-textmate on the Oniguruma regex engine) and prints one line per
// token: `LINE:COL text => innermost scope`. Usage:
//   NODE_PATH=<node_modules> node tokenize.js GRAMMAR FILE
const fs = require('fs');
const path = require('path');
const textmate = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const [grammarPath, filePath] = process.argv.slice(2);
const wasm = fs.readFileSync(
  path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm'));

(async () => {
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async () =>
      textmate.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath),
  });
  const grammar = await registry.loadGrammar('source.arecipe');
  if (!grammar) throw new Error('the grammar did not load');
  let state = textmate.INITIAL;
  const lines = fs.readFileSync(filePath, 'utf8').split('\n');
  lines.forEach((line, i) => {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) {
      const text = line.substring(t.startIndex, t.endIndex);
      if (!text.trim()) continue;
      console.log(`${i + 1}:${t.startIndex + 1} ${text} => ${t.scopes[t.scopes.length - 1]}`);
    }
    state = r.ruleStack;
  });
})().catch((e) => { console.error('tokenize.js: ' + e.message); process.exit(1); });
