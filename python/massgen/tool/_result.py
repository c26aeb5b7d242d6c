"""What a MassGen custom tool returns: content blocks (text, image, audio) and metadata.

Constructors match MassGen's (`TextContent(data=...)`, `ExecutionResult(output_blocks=[...])`), so
tools written for MassGen run here unchanged. The tool host turns the blocks into the text the model
reads.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass
class ContentBlock:
    block_type: str
    data: str


class TextContent(ContentBlock):
    def __init__(self, data: str):
        super().__init__(block_type="text", data=data)


class ImageContent(ContentBlock):
    """Base64 image data."""

    def __init__(self, data: str):
        super().__init__(block_type="image", data=data)


class AudioContent(ContentBlock):
    """Base64 audio data."""

    def __init__(self, data: str):
        super().__init__(block_type="audio", data=data)


@dataclass
class ExecutionResult:
    output_blocks: List[ContentBlock] = field(default_factory=list)
    meta_info: Optional[Dict[str, Any]] = None
    is_streaming: bool = False
    is_final: bool = True
    was_interrupted: bool = False
