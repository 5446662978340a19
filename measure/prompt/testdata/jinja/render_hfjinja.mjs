// Renders a chat template with @huggingface/jinja (the renderer of transformers.js). Reads
// {"template": …, "context": {…}} on stdin, writes the prompt. argv[2]: the package's
// dist/index.js.
import { pathToFileURL } from "node:url";

const { Template } = await import(pathToFileURL(process.argv[2]).href);
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const data = JSON.parse(Buffer.concat(chunks).toString("utf8"));
process.stdout.write(new Template(data.template).render(data.context));
