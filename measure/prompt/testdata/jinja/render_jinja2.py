# Renders a chat template with Python's Jinja2 the way Hugging Face transformers does
# (sandboxed environment, trim_blocks, lstrip_blocks, tojson as json.dumps with
# ensure_ascii=False). Reads {"template": …, "context": {…}} on stdin, writes the prompt.
import json
import sys

from jinja2.sandbox import ImmutableSandboxedEnvironment


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def raise_exception(message):
    raise Exception(message)


env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
data = json.loads(sys.stdin.buffer.read().decode("utf-8"))
out = env.from_string(data["template"]).render(**data["context"])
sys.stdout.buffer.write(out.encode("utf-8", "surrogatepass"))
