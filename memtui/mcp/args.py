"""Argument types more than one tool family takes (a family's own stay in its module).

Each is a pydantic annotation: strict types (a string is never a number or a list written as
JSON), bounds that stop a megabyte "project" before the engine sees it, and the description
Claude reads.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictInt, StrictStr

MAX_QUERY = 4_000
MAX_TEXT = 1_000  # ids, paths and filters: generous, but no megabyte "project"
MAX_LIMIT = 50

Text = Annotated[StrictStr, Field(max_length=MAX_TEXT)]
QueryText = Annotated[StrictStr, Field(min_length=1, max_length=MAX_QUERY)]
Cwd = Annotated[
    StrictStr,
    Field(
        max_length=MAX_TEXT,
        pattern=r"^/",
        description="An absolute working directory: its project (above projects: theirs)",
    ),
]
When = Annotated[
    StrictStr,
    Field(
        max_length=40,
        description="ISO 8601 date or date-time",
    ),
]
Limit = Annotated[StrictInt, Field(ge=1, le=MAX_LIMIT)]
