"""Parser for the signature headers of the original Stable Baselines 2.10 manual.

The manual copies in ``tests/data/manual/`` are PDF-to-text (and HTML-to-text) conversions, so the
headers come in several shapes::

    class stable_baselines.common.vec_env.VecNormalize(venv, training=True,
                                                        norm_obs=True, ...)
    **class** stable\\_baselines.common.callbacks.**BaseCallback** (*verbose: int = 0*)
    stable_baselines.common.evaluation.evaluate_policy(model: BaseRLModel, env: ...) → Union[...]
    **learn**(*total\\_timesteps*, *callback*=None, ..., re-
    set\\_num\\_timesteps=True)            (a method of the class header above it)

with artefacts: words hyphenated across lines, markdown escapes and emphasis, ``[source]``, defaults
rendered as ``<MagicMock id='...'>`` / ``<function ...>``, type annotations, a space before ``(``.

``parse_manual()`` returns one :class:`Header` per class / function header and per method header that
follows a class header in the same manual section (numbered headings end a section).
"""
import ast
import glob
import os
import re
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

MANUAL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "manual")

NOT_LITERAL = object()  # marker: the manual's default is not a literal (MagicMock, <function ...>, ...)


@dataclass
class Param:
    name: str
    kind: str  # "pos" (positional-or-keyword), "kwonly", "varpos", "varkw"
    default: Any = None  # NOT_LITERAL, a literal value, or None when has_default is False
    has_default: bool = False
    raw_default: str = ""


@dataclass
class Header:
    target: str  # dotted path: stable_baselines.a2c.A2C or stable_baselines.a2c.A2C.learn
    is_class: bool
    is_method: bool
    params: Optional[List[Param]]  # None: the header shows no parameter list at all
    source: str  # file:line
    raw: str  # the joined header text (after cleaning)
    unterminated: bool = False  # parentheses never closed in the manual (auto-closed here)

    @property
    def owner(self) -> str:
        return self.target.rsplit(".", 1)[0] if self.is_method else self.target


# --------------------------------------------------------------------------------------------------
# text cleaning

_PLACEHOLDER_STAR = "\x00"


def clean_line(line: str, in_fence: bool = False) -> str:
    """Undo markdown escapes / emphasis / code marks and other conversion artefacts of one line.

    Inside code fences and `code spans` a '*' is literal (``*args``, bare ``*``); elsewhere a bare '*' is
    markdown emphasis and a literal star is escaped as ``\\*``.
    """
    if line.strip().startswith("```"):
        return line.strip()
    line = line.replace("\\\\_", "_").replace("\\_", "_")
    if not in_fence:
        pieces = line.split("`")
        for idx in range(0, len(pieces), 2):  # even pieces are outside code spans
            pieces[idx] = pieces[idx].replace("\\*", _PLACEHOLDER_STAR).replace("*", "")
        line = "".join(pieces).replace(_PLACEHOLDER_STAR, "*")
    else:
        line = line.replace("\\*", "*")
    line = line.replace("[source]", "").replace("\u00b6", "")
    line = line.replace("\u00a0", " ")
    return line.rstrip()


_QUALIFIED_START = re.compile(r"^\s*(?:#+\s*)?(?P<cls>class\s+)?(?P<name>stable_baselines(?:\.\w+)+)\s?(?P<rest>\(.*)?$")
_METHOD_START = re.compile(
    r"^\s*(?:#+\s*)?(?P<deco>(?:classmethod|staticmethod|static)\s+)?(?P<name>[a-z_][A-Za-z0-9_]*)\s?(?P<rest>\(.*)$")
_NUMBERED_HEADING = re.compile(r"^\s*#+\s*(?:\*\*)?\d+(\.\d+)*\s")
_PROSE = re.compile(r"^[A-Z][a-z]+\s+[a-z(]")
_TRAILER_OK = re.compile(r"^\s*((→|->).*)?$")


def _premerge(lines: List[str]) -> List[Tuple[int, str]]:
    """Join headers that the HTML conversion split over several lines (``class`` / ``module.`` / ``Name`` / ``(...``)."""
    out: List[Tuple[int, str]] = []
    i = 0
    while i < len(lines):
        text, lineno = lines[i], i + 1
        while i + 1 < len(lines):
            s = text.strip()
            nxt = lines[i + 1].strip()
            if s == "class" and nxt.startswith("stable_baselines"):
                text = "class " + nxt
            elif re.fullmatch(r"(class )?stable_baselines[\w.]*\.", s) and re.match(r"\w", nxt):
                text = s + nxt
            elif re.fullmatch(r"(class )?stable_baselines[\w.]*\w", s) and nxt.startswith("("):
                text = s + nxt
            else:
                break
            i += 1
        out.append((lineno, text))
        i += 1
    return out


def _collect(first_rest: str, following: List[str]) -> Tuple[str, str, int, bool]:
    """Gather a balanced parenthesised argument list that starts with ``first_rest`` (which begins with '(').

    Returns (inner text, trailer after ')', number of following lines consumed, unterminated flag).
    """
    text = first_rest
    used = 0
    while True:
        depth = 0
        angle = 0
        for pos, char in enumerate(text):
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
                if depth == 0 and char == ")":
                    return text[1:pos], text[pos + 1:], used, False
            elif char == "<" and pos + 1 < len(text) and text[pos + 1].isalpha():
                angle += 1
            elif char == ">" and angle:
                angle -= 1
        if used >= len(following) or used >= 30:
            return text[1:], "", used, True
        nxt = following[used]
        stripped = nxt.strip()
        if stripped.startswith("```") or (stripped and _PROSE.match(stripped)):
            return text[1:], "", used, True
        used += 1
        if not stripped:
            continue
        if re.search(r"[A-Za-z]-$", text.rstrip()):
            text = text.rstrip()[:-1] + stripped  # word hyphenated across the line break
        else:
            text = text.rstrip() + " " + stripped


def _split_top_level(inner: str) -> List[str]:
    parts, depth, angle, cur = [], 0, 0, []
    for pos, char in enumerate(inner):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "<" and pos + 1 < len(inner) and inner[pos + 1].isalpha():
            angle += 1
        elif char == ">" and angle:
            angle -= 1
        if char == "," and depth == 0 and angle == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(char)
    parts.append("".join(cur))
    return [part.strip() for part in parts if part.strip()]


def _find_top_level_eq(item: str) -> int:
    depth = 0
    for pos, char in enumerate(item):
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth = max(depth - 1, 0)
        elif char == "=" and depth == 0:
            before = item[pos - 1] if pos else ""
            after = item[pos + 1] if pos + 1 < len(item) else ""
            if before not in "=<>!" and after != "=":
                return pos
    return -1


def parse_params(inner: str) -> List[Param]:
    params: List[Param] = []
    kwonly = False
    for item in _split_top_level(inner):
        eq = _find_top_level_eq(item)
        name_part, default_str = (item, None) if eq < 0 else (item[:eq], item[eq + 1:].strip())
        name = name_part.split(":", 1)[0]
        # hyphenation inside a line ("re-set_num_timesteps", "de- sired") and stray spaces
        name = re.sub(r"\s+", "", name).replace("-", "")
        if name == "*":
            kwonly = True
            continue
        if name.startswith("**"):
            params.append(Param(name[2:], "varkw"))
            continue
        if name.startswith("*"):
            params.append(Param(name[1:], "varpos"))
            kwonly = True
            continue
        param = Param(name, "kwonly" if kwonly else "pos")
        if default_str is not None:
            param.has_default = True
            param.raw_default = default_str
            try:
                param.default = ast.literal_eval(default_str)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                param.default = NOT_LITERAL
        params.append(param)
    return params


def parse_file(path: str) -> List[Header]:
    with open(path, encoding="utf-8") as handle:
        raw_lines = handle.read().split("\n")
    # the back matter (module index / general index) only repeats names
    for idx, line in enumerate(raw_lines):
        if re.match(r"^#+\s*(Python Module Index|Index)\s*$", line.strip()):
            raw_lines = raw_lines[:idx]
            break
    merged = _premerge(raw_lines)
    cleaned = []
    in_fence = False
    for lineno, text in merged:
        if text.strip().startswith("```"):
            in_fence = not in_fence
            cleaned.append((lineno, text.strip(), text))
            continue
        cleaned.append((lineno, clean_line(text, in_fence), text))
    fname = os.path.basename(path)

    headers: List[Header] = []
    current_class: Optional[str] = None
    i = 0
    while i < len(cleaned):
        lineno, line, original = cleaned[i]
        following = [c[1] for c in cleaned[i + 1:]]
        if _NUMBERED_HEADING.match(original):
            current_class = None
            i += 1
            continue
        match = _QUALIFIED_START.match(line)
        if match:
            name = match.group("name").rstrip(".")
            is_class = bool(match.group("cls"))
            rest = match.group("rest")
            if rest is None:
                # a class header without an argument list (e.g. ProbabilityDistribution): opens a class scope
                if is_class:
                    headers.append(Header(name, True, False, None, "%s:%d" % (fname, lineno), line.strip()))
                    current_class = name
                i += 1
                continue
            inner, trailer, used, unterminated = _collect(rest, following)
            if not unterminated and not _TRAILER_OK.match(trailer):
                i += 1  # prose mentioning a qualified call, not a header
                continue
            header = Header(name, is_class, False, parse_params(inner), "%s:%d" % (fname, lineno),
                            (line.strip() + " " + " ".join(f.strip() for f in following[:used])).strip(),
                            unterminated)
            headers.append(header)
            current_class = name if is_class else None
            i += 1 + used
            continue
        stripped_orig = original.strip()
        if current_class and stripped_orig[:1] in ("*", "#", "`"):
            match = _METHOD_START.match(line)
            if match and match.group("name") not in ("class",):
                inner, trailer, used, unterminated = _collect(match.group("rest"), following)
                if not unterminated and _TRAILER_OK.match(trailer):
                    headers.append(Header(current_class + "." + match.group("name"), False, True, parse_params(inner),
                                          "%s:%d" % (fname, lineno), line.strip()))
                    i += 1 + used
                    continue
        i += 1
    return headers


def parse_manual(directory: str = MANUAL_DIR) -> List[Header]:
    headers: List[Header] = []
    for path in sorted(glob.glob(os.path.join(directory, "*.txt"))):
        headers.extend(parse_file(path))
    return headers
