"""The JSON bodies of the scoring service (validated by pydantic; malformed bodies get HTTP 422)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

MAX_URL_CHARS = 16384
"""Longest URL accepted (the crawler drops URLs over ``crawl.max_url_length``, 2048 by default)."""

Url = Annotated[str, StringConstraints(max_length=MAX_URL_CHARS)]


class LangRequest(BaseModel):
    """``POST /lang_probs``: P(lang(url) == ``lang``) for each URL (``lang`` is an ISO 639-3 code)."""

    model_config = ConfigDict(extra="forbid")

    urls: list[Url]
    lang: str = Field(min_length=1, max_length=32)


class ParallelRequest(BaseModel):
    """``POST /parallel_probs``: P(the two URLs are mutual translations) for each ``[url, url]`` pair."""

    model_config = ConfigDict(extra="forbid")

    pairs: list[tuple[Url, Url]]


class ProbsResponse(BaseModel):
    """One probability per URL or pair, in request order."""

    probs: list[float]
