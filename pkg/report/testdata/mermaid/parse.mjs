// Test helper (go test ./pkg/report): reads Mermaid diagrams from stdin,
// separated by lines holding only "%%--", and parses each with the real Mermaid
// parser. Prints "ok N" and exits 0 when all parse; prints the error and the
// failing diagram's number and exits 1 otherwise.
import mermaid from 'mermaid';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const diagrams = input.split(/^%%--$/m).map((d) => d.trim()).filter((d) => d !== '');
let n = 0;
for (const text of diagrams) {
  n++;
  try {
    await mermaid.parse(text);
  } catch (e) {
    console.error(`diagram ${n}: ${String((e && e.message) || e)}`);
    process.exit(1);
  }
}
console.log(`ok ${n}`);
