"""A deterministic fake language model with a documented tokenizer (no network, no weights).

Tokenizer: a token is a maximal run of word characters (regex ``\\w+``: letters, digits,
underscore) or a single character that is neither a word character nor whitespace (regex
``[^\\w\\s]``: each punctuation mark is its own token). Whitespace is not a token.
``count_tokens("Fork at step 5, re-run the rest.") == 11``. Every token figure in the
examples is this count of the prompt (tokens in) plus this count of the completion (tokens
out), so anyone can recompute it from the stored text.

Completion: a pure function of (prompt, max_tokens). A PRNG seeded with sha256(prompt) draws
sentences of 6..12 words from the prompt's own words (longer than three letters), until
max_tokens would be exceeded. Same prompt, same text, same token counts, on every machine.

``FakeModel`` counts what it actually processed (calls, tokens in, tokens out), so a run's
token bill is measured, never estimated: a step whose completion is replayed from Actae's
ledger costs nothing because the model is not called.
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
from dataclasses import dataclass
from typing import Any

TOKEN = re.compile(r"\w+|[^\w\s]")
_WORD = re.compile(r"[A-Za-z]{4,}")


def tokenize(text: str) -> list[str]:
    """The tokens of text (see the module docstring)."""
    return TOKEN.findall(text)


def count_tokens(text: str) -> int:
    return len(tokenize(text))


@dataclass(frozen=True)
class Usage:
    calls: int
    tokens_in: int
    tokens_out: int

    @property
    def total(self) -> int:
        return self.tokens_in + self.tokens_out


class FakeModel:
    """complete(prompt, max_tokens) -> {"text", "tokens_in", "tokens_out"}; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls = 0
        self._in = 0
        self._out = 0

    def complete(self, prompt: str, max_tokens: int) -> dict[str, Any]:
        text = generate(prompt, max_tokens)
        tokens_in, tokens_out = count_tokens(prompt), count_tokens(text)
        with self._lock:
            self._calls += 1
            self._in += tokens_in
            self._out += tokens_out
        return {"text": text, "tokens_in": tokens_in, "tokens_out": tokens_out}

    def usage(self) -> Usage:
        with self._lock:
            return Usage(self._calls, self._in, self._out)


def generate(prompt: str, max_tokens: int) -> str:
    """The completion of prompt: deterministic, at most max_tokens tokens (at least one
    sentence when max_tokens allows one)."""
    seed = int.from_bytes(hashlib.sha256(prompt.encode()).digest()[:8], "big")
    rng = random.Random(seed)
    vocabulary = sorted(set(w.lower() for w in _WORD.findall(prompt))) or ["nothing"]
    sentences: list[str] = []
    used = 0
    while True:
        words = [rng.choice(vocabulary) for _ in range(rng.randint(6, 12))]
        sentence = " ".join(words).capitalize() + "."
        cost = count_tokens(sentence)
        if used + cost > max_tokens:
            break
        sentences.append(sentence)
        used += cost
    return " ".join(sentences)
