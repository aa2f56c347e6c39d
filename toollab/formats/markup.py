"""What a final answer must not hold: the wire formats' own markers, broken ones included. A model that writes a
call or a tool result as its answer has not answered (the shipped adapter once answered
`<tool_call\n>"banana"\n</tool_call>`, which a pattern for `<tool_call>` alone let through as right, and later
`<tool_ call>` and `< Tool_call>`)."""

from __future__ import annotations

import re

MARKUP = re.compile(
    r"(?i:<\s*/?\s*tool[\s_-]*(?:call|response)|<\s*/?\s*function[\s_-]*(?:name|call))"  # `< Tool_call>` too
    r"|<\|[a-z_]+\|>|\[TOOL_|<｜tool|\bCALL \{|\bRESULT \{"
)
