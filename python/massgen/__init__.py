"""massgen's Python shim: just enough of MassGen's package for its custom tools to run unchanged.

The tool host puts this folder first on sys.path, so `from massgen.tool._result import ExecutionResult`
in a tool written for MassGen finds these classes.
"""
