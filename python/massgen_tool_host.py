"""massgen's Python host: runs Python custom tools and Python agents for a massgen run (stdlib only).

massgen starts it once per run (`python3 -u massgen_tool_host.py`) and speaks JSON lines over stdio.
Each request has an `id`; each reply carries the same `id`, in any order (calls run concurrently).

  {"id": 1, "op": "load", "path": "/abs/tools.py", "functions": ["add"]}
  -> {"id": 1, "ok": true, "tools": [{"function": "add", "description": "...", "parameters": {...}}]}
  {"id": 2, "op": "call", "path": "/abs/tools.py", "function": "add", "arguments": {"x": 1}}
  -> {"id": 2, "ok": true, "text": "3"}
  any failure -> {"id": N, "ok": false, "error": "one line", "trace": "traceback"}
  {"op": "cancel", "target": 2}  (no reply of its own: the call answers "cancelled")
  {"id": 3, "op": "agent", "framework": "python", "module": "pkg.mod", "export": "step", "config": {},
   "base_dir": "/abs/config/dir"}                      (or "adapter": "my_adapter" for a user's adapter)
  -> {"id": 3, "ok": true}   or, framework missing: {"ok": false, "code": "missing_package", "error": "... pip install ..."}
  {"id": 4, "op": "step", "messages": [OpenAI chat messages], "tools": [OpenAI function tools]}
  -> {"id": 4, "ok": true, "content": "...", "tool_calls": [{"id", "name", "arguments"}], "usage": {...}}

Tools may be sync or async functions (or async generators: the last result counts). Their JSON schema
comes from the signature (type hints, defaults) and the docstring's Args: section, as MassGen derives
it. What a tool prints goes to stderr, never into the protocol.
"""

import asyncio
import base64
import importlib.util
import inspect
import json
import os
import sys
import traceback
import typing

HERE = os.path.dirname(os.path.abspath(__file__))
# The shim first: `from massgen.tool._result import ExecutionResult` must find massgen's classes.
sys.path.insert(0, HERE)

# The protocol gets a private copy of stdout; fd 1 itself now points at stderr, so nothing a tool or an
# agent prints — from Python, from C, or from a child process — can reach the protocol.
PROTOCOL = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr
WRITE_LOCK = asyncio.Lock()
MODULES = {}
AGENTS = {}


async def reply(message):
    async with WRITE_LOCK:
        PROTOCOL.write(json.dumps(message, default=str) + "\n")
        PROTOCOL.flush()


def load_module(path):
    if path not in MODULES:
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.append(folder)
        name = "massgen_tool_" + str(len(MODULES))
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError("cannot load " + path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        MODULES[path] = module
    return MODULES[path]


JSON_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean", dict: "object", list: "array"}


def schema_of(annotation):
    """A JSON schema for one parameter's type hint (unknown hints: any value)."""
    if annotation is inspect.Parameter.empty or annotation is typing.Any:
        return {}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union:
        rest = [a for a in args if a is not type(None)]
        return schema_of(rest[0]) if len(rest) == 1 else {"anyOf": [schema_of(a) for a in rest]}
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (list, tuple, set, frozenset):
        return {"type": "array", "items": schema_of(args[0]) if args else {}}
    if origin is dict:
        return {"type": "object"}
    if annotation in JSON_TYPES:
        return {"type": JSON_TYPES[annotation]}
    return {}


def docstring_parts(doc):
    """The summary (text before the first section) and the Args: descriptions of a docstring."""
    summary, args, section, current = [], {}, None, None
    for raw in inspect.cleandoc(doc or "").splitlines():
        line = raw.strip()
        if line.endswith(":") and line[:-1] in ("Args", "Arguments", "Parameters", "Returns", "Raises", "Yields", "Examples", "Example", "Note"):
            section = line[:-1]
            continue
        if section is None:
            summary.append(line)
        elif section in ("Args", "Arguments", "Parameters") and line:
            head, sep, text = line.partition(":")
            name = head.split("(")[0].strip()
            if sep and name.isidentifier() and raw.startswith(("    ", "\t")) and not raw.startswith(("        ", "\t\t")):
                current = name
                args[current] = text.strip()
            elif current:
                args[current] = (args[current] + " " + line).strip()
    return " ".join(" ".join(summary).split()), args


def describe(function):
    summary, arg_docs = docstring_parts(function.__doc__)
    hints = typing.get_type_hints(function)
    properties, required = {}, []
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD) or name in ("self", "cls"):
            continue
        prop = schema_of(hints.get(name, parameter.annotation))
        if name in arg_docs:
            prop["description"] = arg_docs[name]
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
        else:
            try:
                json.dumps(parameter.default)
                prop["default"] = parameter.default
            except TypeError:
                pass
        properties[name] = prop
    parameters = {"type": "object", "properties": properties, "required": required}
    return {"function": function.__name__, "description": summary, "parameters": parameters}


def text_of(result):
    """What the model reads: text blocks as they are, media as a note with its size."""
    blocks = getattr(result, "output_blocks", None)
    if blocks is not None:
        parts = []
        for block in blocks:
            kind = getattr(block, "block_type", "text")
            data = getattr(block, "data", "")
            if kind == "text":
                parts.append(str(data))
            else:
                try:
                    size = len(base64.b64decode(data, validate=False))
                except Exception:
                    size = len(data or "")
                parts.append("[%s: %d bytes]" % (kind, size))
        return "\n".join(parts)
    if isinstance(result, str):
        return result
    if result is None:
        return ""
    try:
        return json.dumps(result)
    except TypeError:
        return str(result)


async def call(function, arguments):
    if inspect.isasyncgenfunction(function):
        last = None
        async for item in function(**arguments):
            last = item
        return last
    if inspect.iscoroutinefunction(function):
        return await function(**arguments)
    result = await asyncio.to_thread(function, **arguments)
    if inspect.isawaitable(result):
        result = await result
    return result


def find(path, name):
    function = getattr(load_module(path), name, None)
    if not callable(function):
        raise LookupError("%s has no function named %r" % (path, name))
    return function


async def handle(request):
    ident = request.get("id")
    try:
        if request["op"] == "load":
            tools = [describe(find(request["path"], name)) for name in request["functions"]]
            await reply({"id": ident, "ok": True, "tools": tools})
        elif request["op"] == "call":
            function = find(request["path"], request["function"])
            result = await call(function, request.get("arguments") or {})
            await reply({"id": ident, "ok": True, "text": text_of(result)})
        elif request["op"] == "agent":
            from massgen_bridge import agents

            try:
                AGENTS[request.get("key", "agent")] = await agents.load(request)
            except agents.MissingPackage as error:
                await reply({"id": ident, "ok": False, "error": str(error), "code": "missing_package"})
                return
            await reply({"id": ident, "ok": True})
        elif request["op"] == "step":
            from massgen_bridge import agents

            agent = AGENTS.get(request.get("key", "agent"))
            if agent is None:
                raise LookupError("no agent loaded")
            await reply({"id": ident, "ok": True, **(await agents.step(agent, request))})
        else:
            raise ValueError("unknown op %r" % request.get("op"))
    except asyncio.CancelledError:
        await reply({"id": ident, "ok": False, "error": "cancelled"})
    except BaseException as error:  # noqa: BLE001 - every failure is the caller's tool error
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        message = "%s: %s" % (type(error).__name__, error)
        await reply({"id": ident, "ok": False, "error": message, "trace": traceback.format_exc()})


async def main():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    tasks = {}
    while True:
        line = await reader.readline()
        if not line:
            break
        try:
            request = json.loads(line)
        except ValueError:
            await reply({"id": None, "ok": False, "error": "not JSON: " + line[:80].decode(errors="replace")})
            continue
        if request.get("op") == "cancel":
            # A timed-out or abandoned call: async tools stop here; a sync one finishes in its thread.
            target = tasks.get(request.get("target"))
            if target is not None:
                target.cancel()
            continue
        ident = request.get("id")
        task = asyncio.create_task(handle(request))
        tasks[ident] = task
        task.add_done_callback(lambda _t, ident=ident: tasks.pop(ident, None))
    if tasks:
        await asyncio.gather(*tasks.values(), return_exceptions=True)


if __name__ == "__main__":
    asyncio.run(main())
