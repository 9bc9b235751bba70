// Parses mermaid diagrams with mermaid's own parser (npm mermaid, the library GitHub renders
// mermaid code blocks with) so that tests check the report's charts against it, not against a
// regular expression of ours.
// Usage: node mermaid_oracle.mjs <node_modules dir> < requests > answers
// Each line of the input is one request, and gets one line of output, in order; the process
// ends at the end of its input (loading mermaid takes about 2 s, so a test session keeps one
// process and sends it every request).
// request: a JSON list of diagram texts (the inside of a ```mermaid fence), on one line
// answer: a JSON list of one object per text:
//   {"ok": true, "type": "xychart", "config": {...frontmatter config...}, "title": "<the title as
//    the SVG shows it>", "xAxis": {...}, "yAxis": {...}, "plots": [{"type": "line", "data":
//    [["<x>", y], ...]}, ...]}   (xAxis, yAxis and plots: the chart's data as mermaid computed it)
//   or {"ok": false, "error": "..."} when mermaid rejects the text.
// Mermaid's text sanitizer (DOMPurify) needs a DOM: jsdom provides one before mermaid loads.
import { createRequire } from "node:module";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const modules = process.argv[2];
const require = createRequire(join(modules, "noop.js"));
const { JSDOM } = require("jsdom");
const dom = new JSDOM("<!DOCTYPE html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import(
  pathToFileURL(join(modules, "mermaid", "dist", "mermaid.core.mjs")).href);
mermaid.initialize({ startOnLoad: false });

// What the rendered SVG shows for a text mermaid put in a text node: the node is serialized,
// mermaid turns its entity placeholders back into character references (decodeEntities in
// mermaid's utils), and the browser reads the markup again.
function shown(text) {
  const holder = document.createElement("div");
  const node = document.createElementNS("http://www.w3.org/2000/svg", "text");
  node.textContent = text;
  holder.appendChild(node);
  holder.innerHTML = holder.innerHTML.replace(/ﬂ°°/g, "&#").replace(/ﬂ°/g, "&").replace(/¶ß/g, ";");
  return holder.textContent;
}

async function check(text) {
  let parsed;
  try {
    parsed = await mermaid.parse(text);
  } catch (error) {
    return { ok: false, error: String(error && error.message || error) };
  }
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
  const db = diagram.db;
  const out = { ok: true, type: parsed.diagramType, config: parsed.config || {} };
  if (typeof db.getDiagramTitle === "function") {
    out.title = shown(db.getDiagramTitle());
  }
  if (typeof db.getXYChartData === "function") {
    const data = db.getXYChartData();
    out.xAxis = { ...data.xAxis, title: shown(data.xAxis.title) };
    out.yAxis = { ...data.yAxis, title: shown(data.yAxis.title) };
    out.plots = data.plots.map((plot) => ({ type: plot.type, data: plot.data }));
  }
  return out;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) {
    continue;
  }
  const results = [];
  for (const text of JSON.parse(line)) {
    results.push(await check(text));
  }
  await new Promise((done) => process.stdout.write(JSON.stringify(results) + "\n", done));
}
// the input ended: exit (jsdom keeps the event loop alive otherwise)
process.exit(0);
