// Evaluates GitHub Actions expressions with GitHub's own implementation (npm @actions/expressions)
// so that tests can compare our evaluator against it.
// Usage: node expressions_oracle.mjs <node_modules dir> < request.json > results.json
// request: {"contexts": [{"values": {...}, "status": "success"|"failure"|"cancelled"}],
//           "expressions": [{"text": "...", "if": true|false}]}
// results: one row per expression, one cell per context:
//   {"kind": "String"|"Number"|"Boolean"|"Null"|"Array"|"Object", "json": <value>, "string": "...",
//    "truthy": true|false}
//   or {"error": "..."} when lexing, parsing or evaluation fails.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.argv[2];
const lib = await import(pathToFileURL(join(modules, "@actions", "expressions", "dist", "index.js")).href);
const ast = await import(pathToFileURL(join(modules, "@actions", "expressions", "dist", "ast.js")).href);
const result = await import(pathToFileURL(join(modules, "@actions", "expressions", "dist", "result.js")).href);
const { Lexer, Parser, Evaluator, data } = lib;

const CONTEXTS = ["github", "env", "vars", "job", "jobs", "steps", "runner", "secrets", "strategy",
  "matrix", "needs", "inputs"];
const STATUS = ["success", "failure", "cancelled", "always"];
const STATUS_INFO = STATUS.map((name) => ({ name, minArgs: 0, maxArgs: 0 }));

function statusFunctions(status) {
  const truth = {
    success: status === "success",
    failure: status === "failure",
    cancelled: status === "cancelled",
    always: true,
  };
  return new Map(STATUS.map((name) => [name, {
    name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(truth[name]),
  }]));
}

// Does the expression call a status function anywhere? (the runner's rule for `if:`)
function usesStatus(node) {
  if (node instanceof ast.FunctionCall) {
    return STATUS.includes(node.functionName.lexeme.toLowerCase()) || node.args.some(usesStatus);
  }
  if (node instanceof ast.Logical) return node.args.some(usesStatus);
  if (node instanceof ast.Binary) return usesStatus(node.left) || usesStatus(node.right);
  if (node instanceof ast.Unary) return usesStatus(node.expr);
  if (node instanceof ast.Grouping) return usesStatus(node.group);
  if (node instanceof ast.IndexAccess) return usesStatus(node.expr) || usesStatus(node.index);
  return false;
}

function parse(text) {
  const lexed = new Lexer(text).lex();
  return new Parser(lexed.tokens, CONTEXTS, STATUS_INFO).parse();
}

function describe(value) {
  const kind = data.Kind[value.kind] === "Dictionary" || data.Kind[value.kind] === "CaseSensitiveDictionary"
    ? "Object" : data.Kind[value.kind];
  return {
    kind,
    json: JSON.parse(JSON.stringify(value, data.replacer)),
    string: value.coerceString(),
    truthy: result.truthy(value),
  };
}

const request = JSON.parse(readFileSync(0, "utf-8"));
const contexts = request.contexts.map((c) => ({
  values: JSON.parse(JSON.stringify(c.values), data.reviver),
  functions: statusFunctions(c.status),
}));

const rows = request.expressions.map((expression) => {
  let tree;
  try {
    tree = parse(expression.text);
  } catch (error) {
    return contexts.map(() => ({ error: `parse: ${error.message}` }));
  }
  if (expression.if && !usesStatus(tree)) {
    // an `if:` without a status function runs as `success() && (<expression>)`
    tree = parse(`success() && (${expression.text})`);
  }
  return contexts.map((context) => {
    try {
      return describe(new Evaluator(tree, context.values, context.functions).evaluate());
    } catch (error) {
      return { error: `evaluate: ${error.message}` };
    }
  });
});
process.stdout.write(JSON.stringify(rows));
