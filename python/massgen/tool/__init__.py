"""Tool result types, as MassGen's `massgen.tool` exports them."""

from ._result import AudioContent, ContentBlock, ExecutionResult, ImageContent, TextContent

__all__ = ["AudioContent", "ContentBlock", "ExecutionResult", "ImageContent", "TextContent"]
