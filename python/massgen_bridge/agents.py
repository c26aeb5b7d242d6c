"""Agents from Python frameworks, driven by massgen over the bridge (standard library only).

An agent is loaded once (`load`) and then called once per massgen step (`step`) with the conversation
and massgen's tools, both in OpenAI's chat format. A step returns what the agent says and the calls of
massgen's tools it makes: `{"content": str, "tool_calls": [...], "usage": {...}}`.

Frameworks:
  python      your module's `create(config)` (an object with `step`), or its `step(messages, tools)`
  ag2         massgen's AG2 driver, MassGen's `agent_config` / `group_config` shape (ag2.py)
  smolagents, agentscope, crewai
              the framework is imported (or the exact `pip install` is named), then your module's
              `step(messages, tools)` drives your agent, as for `python`
A user's own adapter is a module with `create(config, module)` returning an object with `step`.
"""

import importlib
import importlib.util
import inspect
import json
import os
import sys
import uuid

# framework name -> (module imported to check it is installed, what to pip install)
FRAMEWORKS = {
    "python": None,
    "ag2": ("autogen", "ag2[openai]"),
    "smolagents": ("smolagents", "smolagents"),
    "agentscope": ("agentscope", "agentscope"),
    "crewai": ("crewai", "crewai"),
}


class MissingPackage(Exception):
    """The framework is not installed; the message is the pip command to run."""


def require(framework):
    need = FRAMEWORKS.get(framework)
    if need is None:
        return
    module, package = need
    try:
        importlib.import_module(module)
    except ImportError as error:
        raise MissingPackage(
            "%s is not installed for %s (%s): pip install '%s'" % (framework, sys.executable, error, package)
        ) from None


def import_module(spec, base_dir):
    """`pkg.mod` from the config's folder (then sys.path), or a file path ending in .py."""
    if spec.endswith(".py") or os.sep in spec:
        path = spec if os.path.isabs(spec) else os.path.join(base_dir, spec)
        name = "massgen_agent_" + uuid.uuid4().hex[:8]
        loader = importlib.util.spec_from_file_location(name, path)
        if loader is None or loader.loader is None:
            raise ImportError("cannot load " + path)
        module = importlib.util.module_from_spec(loader)
        sys.modules[name] = module
        sys.path.insert(0, os.path.dirname(path))
        loader.loader.exec_module(module)
        return module
    if base_dir not in sys.path:
        sys.path.insert(0, base_dir)
    return importlib.import_module(spec)


async def maybe_await(value):
    return await value if inspect.isawaitable(value) else value


class FunctionAgent:
    """An agent given as a module-level `step` function (the `python` contract)."""

    def __init__(self, step):
        self._step = step

    async def step(self, messages, tools):
        if inspect.iscoroutinefunction(self._step):
            return await self._step(messages, tools)
        import asyncio

        return await maybe_await(await asyncio.to_thread(self._step, messages, tools))


async def load(request):
    framework = request.get("framework") or "python"
    config = request.get("config") or {}
    base_dir = request.get("base_dir") or os.getcwd()
    adapter = request.get("adapter")
    if adapter:
        module = import_module(adapter, base_dir)
        create = getattr(module, "create", None)
        if not callable(create):
            raise LookupError("the adapter %s has no create(config, module) function" % adapter)
        target = import_module(request["module"], base_dir) if request.get("module") else None
        return await maybe_await(create(config, target))
    if framework not in FRAMEWORKS:
        raise LookupError("unknown framework %r (known: %s)" % (framework, ", ".join(sorted(FRAMEWORKS))))
    require(framework)
    if framework == "ag2":
        from massgen_bridge.ag2 import AG2Agent

        return AG2Agent(config)
    if not request.get("module"):
        raise LookupError("framework %s needs module: (the Python module with step(messages, tools))" % framework)
    module = import_module(request["module"], base_dir)
    name = request.get("export")
    if name is None and callable(getattr(module, "create", None)):
        return await maybe_await(module.create(config))
    name = name or "step"
    target = getattr(module, name, None)
    if target is None:
        names = sorted(n for n, v in vars(module).items() if not n.startswith("_") and not inspect.ismodule(v))
        raise LookupError("%s has no %r (it has: %s)" % (request["module"], name, ", ".join(names) or "nothing"))
    if hasattr(target, "step"):
        return target
    if callable(target):
        return FunctionAgent(target)
    raise TypeError("%s.%s is neither a step function nor an object with step()" % (request["module"], name))


def normalise(result):
    """An agent's reply in the bridge's shape; accepts a string, or OpenAI's assistant message."""
    if result is None:
        return {"content": "", "tool_calls": [], "usage": {}}
    if isinstance(result, str):
        return {"content": result, "tool_calls": [], "usage": {}}
    if not isinstance(result, dict):
        content = getattr(result, "content", None)
        return {"content": str(content if content is not None else result), "tool_calls": [], "usage": {}}
    calls = []
    for index, call in enumerate(result.get("tool_calls") or []):
        function = call.get("function") or call
        arguments = function.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except ValueError:
                pass
        calls.append({"id": str(call.get("id") or "call_%d" % index), "name": function["name"], "arguments": arguments})
    return {"content": result.get("content") or "", "tool_calls": calls, "usage": result.get("usage") or {}}


async def step(agent, request):
    return normalise(await maybe_await(agent.step(request.get("messages") or [], request.get("tools") or [])))
