"""massgen's AG2 driver: MassGen's `type: ag2` configs (`agent_config` or `group_config`).

Written against AG2's API (`autogen`): `ConversableAgent` / `AssistantAgent`, `LLMConfig`, code
executors from `autogen.coding`, `update_tool_signature` to offer massgen's tools, `a_generate_reply`
for one agent, and `a_initiate_group_chat` with `AutoPattern` / `RoundRobinPattern` for a group whose
"User" agent holds the workflow tools and ends the chat by calling one.
"""

import os

DEFAULT_MAX_ROUNDS = 20
PATTERNS = ("auto", "round_robin")
EXECUTORS = ("LocalCommandLineCodeExecutor", "DockerCommandLineCodeExecutor", "JupyterCodeExecutor", "YepCodeCodeExecutor")


def llm_config(autogen, data):
    if isinstance(data, list):
        return autogen.LLMConfig(*data)
    if isinstance(data, dict):
        return autogen.LLMConfig(data)
    raise ValueError("llm_config must be a mapping or a list of mappings, not %s" % type(data).__name__)


def code_executor(settings):
    kind = settings.get("type")
    if kind not in EXECUTORS:
        raise ValueError("code_execution_config.executor.type must be one of %s, not %r" % (", ".join(EXECUTORS), kind))
    params = {k: v for k, v in settings.items() if k != "type"}
    if kind == "JupyterCodeExecutor":
        from autogen.coding.jupyter import JupyterCodeExecutor as Executor
    else:
        import autogen.coding

        Executor = getattr(autogen.coding, kind)
    return Executor(**params)


def make_agent(autogen, config, default_llm=None):
    config = dict(config)
    if "name" not in config:
        raise ValueError("every AG2 agent needs a name")
    kind = config.pop("type", "conversable")
    classes = {"assistant": autogen.AssistantAgent, "conversable": autogen.ConversableAgent}
    if kind not in classes:
        raise ValueError("AG2 agent type must be assistant or conversable, not %r" % kind)
    llm = config.pop("llm_config", None) or default_llm
    if llm is None:
        raise ValueError("AG2 agent %s needs llm_config" % config["name"])
    kwargs = {
        "name": config["name"],
        "system_message": config.get("system_message", "You are a helpful AI assistant."),
        "human_input_mode": "NEVER",
        "llm_config": llm_config(autogen, llm),
    }
    if config.get("description"):
        kwargs["description"] = config["description"]
    execution = config.get("code_execution_config") or {}
    if execution.get("executor"):
        kwargs["code_execution_config"] = {"executor": code_executor(execution["executor"])}
    return classes[kind](**kwargs)


def offer(agent, tools):
    """Offers exactly `tools` this step: what an earlier step offered and this one does not is taken back
    (the final presentation offers none)."""
    names = [t["function"]["name"] for t in tools]
    for name in getattr(agent, "_massgen_offered", []):
        if name not in names:
            agent.update_tool_signature(tool_sig=name, is_remove=True)
    for tool in tools:
        agent.update_tool_signature(tool_sig=tool, is_remove=False, silent_override=True)
    agent._massgen_offered = names


def reply_of(message):
    if isinstance(message, dict):
        return {"content": message.get("content") or "", "tool_calls": message.get("tool_calls") or []}
    return {"content": "" if message is None else str(message), "tool_calls": []}


class AG2Agent:
    def __init__(self, config):
        import autogen

        # AG2 reads Gemini keys under another name.
        if "GEMINI_API_KEY" in os.environ and "GOOGLE_GEMINI_API_KEY" not in os.environ:
            os.environ["GOOGLE_GEMINI_API_KEY"] = os.environ["GEMINI_API_KEY"]
        single, group = config.get("agent_config"), config.get("group_config")
        if bool(single) == bool(group):
            raise ValueError("type: ag2 needs exactly one of agent_config (one agent) or group_config (a group chat)")
        self.autogen = autogen
        if single:
            self.agent = make_agent(autogen, single)
            self.group = None
        else:
            self._setup_group(group)

    def _setup_group(self, group):
        from autogen.agentchat.group.patterns import AutoPattern, RoundRobinPattern

        default_llm = group.get("llm_config")
        if not default_llm:
            raise ValueError("group_config needs llm_config (the default for its agents)")
        agents = [make_agent(self.autogen, a, default_llm) for a in group.get("agents") or []]
        if not agents:
            raise ValueError("group_config.agents is empty")
        pattern = group.get("pattern") or {}
        kind = pattern.get("type")
        if kind not in PATTERNS:
            raise ValueError("group_config.pattern.type must be one of %s, not %r" % (", ".join(PATTERNS), kind))
        names = {a.name: a for a in agents}
        initial = pattern.get("initial_agent")
        if initial not in names:
            raise ValueError("group_config.pattern.initial_agent %r is not one of %s" % (initial, ", ".join(names)))
        user_config = group.get("user_agent")
        if user_config:
            user = make_agent(self.autogen, user_config, default_llm)
            if user.name != "User":
                raise ValueError("group_config.user_agent must be named User")
        else:
            user = self.autogen.ConversableAgent(
                name="User",
                description="Decides after the experts have spoken, and calls the workflow tools.",
                human_input_mode="NEVER",
                code_execution_config=False,
                llm_config=llm_config(self.autogen, default_llm),
            )
        manager = dict(pattern.get("group_manager_args") or {})
        manager["llm_config"] = llm_config(self.autogen, manager.get("llm_config") or default_llm)
        # The chat ends when the User agent calls a tool: that call is the step's result.
        manager["is_termination_msg"] = lambda m: m.get("name") == "User" and bool(m.get("tool_calls"))
        Pattern = AutoPattern if kind == "auto" else RoundRobinPattern
        self.user = user
        self.experts = agents
        self.group = Pattern(initial_agent=names[initial], agents=agents, user_agent=user, group_manager_args=manager)
        self.max_rounds = group.get("max_rounds", DEFAULT_MAX_ROUNDS)

    async def step(self, messages, tools):
        if self.group is None:
            offer(self.agent, tools)
            return reply_of(await self.agent.a_generate_reply(messages=messages))
        # Only the User's last message comes back to massgen, so it holds all of massgen's tools.
        offer(self.user, tools)
        named = [dict(m, name="User") for m in messages]
        from autogen.agentchat import a_initiate_group_chat

        result, _context, _last = await a_initiate_group_chat(
            pattern=self.group, messages=named, max_rounds=self.max_rounds
        )
        history = getattr(result, "chat_history", None) or []
        return reply_of(history[-1] if history else None)
