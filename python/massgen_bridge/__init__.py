"""massgen's Python side of the bridge: agents from Python frameworks (see agents.py)."""
