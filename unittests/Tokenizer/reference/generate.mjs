// Regenerates expected/<name>.json: the token ids the reference
// implementation (@huggingface/tokenizers, the Hugging Face JavaScript port,
// which matches the Rust library's Oniguruma regex semantics) gives for
// every string of corpus.json, with each tokenizer of variants.json.
//
//   node unittests/Tokenizer/reference/generate.mjs [TOKENIZER_DIR]
//
// TOKENIZER_DIR defaults to $ARECIPE_TEST_TOKENIZERS or
// /usr/local/share/arecipe/tokenizers (scripts/install-test-tokenizers.sh
// fills it). The tests only read the committed expected files.
import fs from "fs";
import path from "path";
import { fileURLToPath, pathToFileURL } from "url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2] || process.env.ARECIPE_TEST_TOKENIZERS || "/usr/local/share/arecipe/tokenizers";
const refModule = path.join(dir, "reference", "package", "dist", "tokenizers.mjs");
const refPackage = JSON.parse(fs.readFileSync(path.join(dir, "reference", "package", "package.json")));
const { Tokenizer } = await import(pathToFileURL(refModule).href);

const corpus = JSON.parse(fs.readFileSync(path.join(here, "corpus.json"))).strings;
const variants = JSON.parse(fs.readFileSync(path.join(here, "variants.json"))).tokenizers;
const config = { clean_up_tokenization_spaces: false };

for (const [name, spec] of Object.entries(variants)) {
  const json = JSON.parse(fs.readFileSync(path.join(dir, spec.base, "tokenizer.json")));
  for (const [key, value] of Object.entries(spec.set || {})) json[key] = value;
  const tok = new Tokenizer(json, config);
  const cases = corpus.map((text) => {
    const plain = tok.encode(text, { add_special_tokens: false }).ids;
    const special = tok.encode(text, { add_special_tokens: true }).ids;
    const decoded = special.length ? tok.decode(special, { skip_special_tokens: false }) : "";
    return [plain, special, decoded];
  });
  const out = {
    tokenizer: name,
    reference: `${refPackage.name} ${refPackage.version}`,
    cases,
  };
  fs.writeFileSync(path.join(here, "expected", `${name}.json`), JSON.stringify(out) + "\n");
  console.log(`${name}: ${cases.length} strings, ${cases.reduce((n, c) => n + c[0].length, 0)} tokens`);
}
