"""The ``key = value`` and "password is X" scanner of credential redaction.

Part of credential redaction (spec "Where it lives"; see :mod:`omb_tui.core.redaction.redact`). Every
value ends at the memory-line conventions (a `` · `` separator, a table cell's `` |``, a
closing ``~~``) and at a «redacted N chars» mark.

Rules for ``key: value`` and ``key=value`` assignments (the key name stays):

* Password keys (password, passwd, passphrase; ``DB_PASSWORD`` too): any value
  that is not a reference (``$VAR``, ``<your key>``, ``None``, ``***``,
  ``os.environ/…``), a file path (``~/…``, ``/a/b``) or an ordinary word (a
  function word, or one of a small list of words that describe a password:
  "required", "changed", "weak", ...). After a colon an unquoted value may be a
  pass phrase of several words, up to the next ``key:``/``key=`` on the line
  (``password: correct horse token=…`` is two values); if it has a function
  word it reads as a sentence
  and only a first word that looks like a password (a digit, a symbol or an
  inner capital) goes: ``password: hunter2, the user changes it`` keeps the remark.
  A value of several words that describes the secret stays whole: one that starts
  with a directive ("wifi password: ask reception", "password: see 1Password") or
  a number of 1-3 digits ("secret: 42 is the answer"), has a number and a unit
  ("12 characters minimum", "four random words"), or has only ordinary words
  ("rotated yearly"). "correct horse battery staple" is none of these.
* Secret keys (``secret``, ``*_secret``, ``pwd``): the same, but one word only;
  ``secret: she hates cilantro`` and ``pwd: /Users/maciej`` stay.
* Token-like keys (``token``, ``*_token``, ``pass``, and
  ``api/access/secret/private/auth/client/… key`` with ``_``, ``-``, a space or
  nothing before ``key``: ``API key: …``): only a value that looks generated: 8+
  characters with letters and digits, or 24+ characters of mixed case. After a
  ``token`` key 8+ ASCII letters count too (``token=abcdefghij``), unless they are
  an ordinary word or a lower-case word with more words after it
  ("token: regenerated monthly").
* Any other ``*_key`` (``STRIPE_KEY``, ``maps-key``, ``app.key``, ``weatherKey``), whatever the vendor: only a
  value of one word that looks generated (20+ characters with letters, digits and a 16-character run of them, or
  24+ of both cases), and not under a name for a key that is no secret (``public_key``, ``sort_key``,
  ``cache_key``, …).
* ``Authorization`` headers are read by :mod:`.redact_pasted`, whatever their scheme.
* Quoted values: the text inside the quotes, for every key.

The phrase "password is X" (also "was", "is now", "is set to", "is:"; password,
passwd, passphrase; "password for the router is X" with up to four words after
for/of/on/to) redacts X when X is one word, or a quoted value, that is not
a reference, a path or an ordinary word (as above). If more words follow X in
the same clause, X must also look like a password (a digit, a symbol or an
inner capital), and a number followed by a unit ("12 characters") is a length,
a number of 1-3 digits a count:
"my password is hunter2" and "the password is swordfish." lose the password;
"the password is changed monthly", "the password is kept in 1Password" and
"the password is 12 characters long" stay. After "pass" ("our wifi pass is
Tulip77") X must always look like a password, and a ticket ("the boarding pass
is BA0117") is not one. After a key name or "token"/"secret" ("the API key is X",
"the token is X") X must look generated: 16+ characters with letters, digits and
a 16-character alphanumeric run ("the private key is id_ed25519" stays).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from .values import MARK_RE, Span, is_reference, lazy, left_ok, looks_like_password, plausible, random_token

__all__ = ["assignment_spans"]

_LINE_BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"

_PASSWORD_KEYS = r"pass(?:word|wd|phrase)|pass[ \t]phrase"
# Keys whose value may be short and plain ("secret: hunter2") but is one word, never
# a multi-word pass phrase ("secret: she hates cilantro" is a note, not a secret).
_SHORT_KEYS = r"secret|(?<![A-Za-z])pwd"
_KEY_NAME_PREFIXES = r"(?:api|access|secret|private|auth|client|master|encryption|signing|session)"
_TOKEN_KEYS = rf"token|(?<![A-Za-z])pass|{_KEY_NAME_PREFIXES}(?:[_-]|[ \t])?key"
# Any other key name that ends in "key" after "_", "-" or "." (STRIPE_KEY, app.key) or in camel case (weatherKey).
_GENERIC_KEY = r"(?<=[A-Za-z0-9][_.-])key|(?-i:(?<=[a-z])Key)"
_ASSIGN_RE = lazy(
    rf"(?:(?P<pw>{_PASSWORD_KEYS})|(?P<short>{_SHORT_KEYS})|(?P<tok>{_TOKEN_KEYS})|(?P<gen>{_GENERIC_KEY}))"
    r"[\"'`*_\]]{0,3}"  # closing quote, bracket or markdown emphasis of the key
    r"[ \t]*(?P<sep>:=|=>|:(?!:)|=(?!=))"
    r"(?:\*{1,2}|_{1,2})?[ \t]*",  # "**Password:** hunter2"
    re.IGNORECASE,
)
# "my password is hunter2", "the wifi password was: Tulip77", "password is now X",
# "the password for the router is X", "our wifi pass is X", "the API key is X".
_PHRASE_RE = lazy(
    rf"(?:(?P<pw>{_PASSWORD_KEYS})|(?P<pass>pass)(?![A-Za-z])"
    rf"|(?P<tok>{_KEY_NAME_PREFIXES}(?:[_-]|[ \t])?key|token|secret)(?![A-Za-z]))"
    r"(?:[ \t]+(?:for|of|on|to)(?:[ \t]+[^\s.,;:!?]+){1,4}?)?"  # "password for the router"
    r"[ \t]+(?:is|was)(?:[ \t]+(?:now|still|currently|set[ \t]+to))?[ \t]*:?[ \t]+",
    re.IGNORECASE,
)
# Every key name above starts with one of these, or ends with "key" after a prefix.
_ASSIGN_LITERALS = ("pass", "pwd", "token", "secret")
_KEY_PREFIX_RE = lazy(rf"{_KEY_NAME_PREFIXES}(?:[_-]|[ \t])?\Z")
_KEY_PREFIX_ANY_CASE_RE = lazy(_KEY_PREFIX_RE.pattern, re.IGNORECASE)
_KEY_LITERAL_RE = lazy("|".join((*_ASSIGN_LITERALS, "key")), re.IGNORECASE)
_BARE_VALUE_RE = lazy(r"[^\s\"'`<>()\[\]{},;|&]+")  # token=…: stops at & (query strings)
_BARE_PASSWORD_RE = lazy(r"[^\s\"'`]+")  # password=…: anything up to a space
_QUOTES = "\"'`"
# Where a pass phrase's clause ends: "passphrase: correct horse battery staple, keep it safe".
_CLAUSE_END_RE = lazy(r"[,;!?:](?=\s)|\.(?=\s|\Z)|\s(?=[(\u2013\u2014]|--?\s)|[\"`](?=\s|\Z)|[\"'`](?=\s*[,:;.}\]])")


def _assignment_matches(text: str, lowered: str) -> Iterator[tuple[bool, re.Match[str]]]:
    """``(is_phrase, match)`` for ``_ASSIGN_RE`` and ``_PHRASE_RE``, tried only where a
    key-name literal occurs.

    A case-insensitive alternation scanned over the whole text costs ~150 ms per
    500 KB; ``str.find`` on the lower-cased text followed by anchored matches costs
    a few. (When lower-casing moved positions, "İ" being two characters lower-cased,
    the literals are found with one case-insensitive scan instead.)
    """
    if len(lowered) == len(text):
        found: list[int] = []
        for literal in (*_ASSIGN_LITERALS, "key"):
            i = lowered.find(literal)
            while i != -1:
                found.append(i)
                i = lowered.find(literal, i + 1)
        haystack, prefix_re = lowered, _KEY_PREFIX_RE
    else:
        found = [m.start() for m in _KEY_LITERAL_RE.finditer(text)]
        haystack, prefix_re = text, _KEY_PREFIX_ANY_CASE_RE
    starts: set[int] = set()
    for start in found:
        if haystack[start : start + 3].lower() != "key":
            starts.add(start)
            continue
        # "API key", "secret_key": the key name starts at its prefix.
        prefix = prefix_re.search(haystack, max(0, start - 12), start)
        starts.add(start if prefix is None else prefix.start())  # no known prefix: any other *_key
    for start in sorted(starts):
        m = _ASSIGN_RE.match(text, start)
        if m is not None:
            yield False, m
            continue  # a key followed by ":" or "=" is not followed by "is"
        m = _PHRASE_RE.match(text, start)
        if m is not None:
            yield True, m


# Where a value ends at the latest, whatever it looks like: the " · " separator of the
# memory-line conventions (so "· until DATE", "· superseded DATE", "· moved DATE" stay),
# a table cell's " |" (any unescaped "|" in a table row), and the "~~" that closes a
# strikethrough opened before the value on the same line.
_BOUNDARY_RE = lazy(r"[ \t]+·(?=[ \t]|\Z)|[ \t]*(?<!\\)\||~~")
_LINE_BREAK_RE = lazy("[" + re.escape(_LINE_BREAKS) + "]")


class _Scan:
    """What every value of one text needs: the line around a position (cached, as
    matches come in text order) and whether the text has marks at all."""

    __slots__ = ("_breaks", "_line", "_tildes", "has_marks", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.has_marks = "«redacted " in text
        self._breaks: list[str] | None = None  # the line-break characters the text has
        self._line: Span = (0, -1)
        self._tildes: tuple[int, list[int]] = (-1, [])  # a line's start, its "~~" positions

    def line(self, pos: int) -> Span:
        """Start and end (before the line break) of the line holding ``pos``."""
        start, end = self._line
        if start <= pos <= end:
            return self._line
        text = self.text
        if self._breaks is None:
            self._breaks = [c for c in _LINE_BREAKS if c in text]
        start = max((text.rfind(c, 0, pos) for c in self._breaks), default=-1) + 1
        found = _LINE_BREAK_RE.search(text, pos) if self._breaks else None
        self._line = start, len(text) if found is None else found.start()
        return self._line

    def limit(self, pos: int, stop: int | None = None, *, spaces: bool = True) -> int:
        """Where a value starting at ``pos`` must end (see ``_BOUNDARY_RE``): the first
        boundary before ``stop`` (at most the line end), else ``stop``. ``spaces``:
        whether ``text[pos:stop]`` may hold white space (a separator)."""
        text = self.text
        line_end = self.line(pos)[1]
        end = line_end if stop is None else min(stop, line_end)
        if not spaces and text.find("~", pos, end) < 0 and text.find("|", pos, end) < 0:
            return end  # without white space only a "~~" or a "|" can end the value
        table: bool | None = None
        struck: bool | None = None
        for m in _BOUNDARY_RE.finditer(text, pos, end):
            token = m.group()
            if token == "~~":
                if struck is None:
                    struck = self._tildes_before(pos) % 2 == 1
                if struck:
                    return m.start()
            elif token[0] == "|":
                if table is None:
                    first = self.line(pos)[0]
                    while first < pos and text[first] in " \t":
                        first += 1
                    table = text.startswith("|", first)
                if table:
                    return m.start()
            else:
                return m.start()
        return end

    def _tildes_before(self, pos: int) -> int:
        """How many "~~" (counted left to right, as ``str.count`` does) precede ``pos`` on its line."""
        line_start, line_end = self.line(pos)
        if self._tildes[0] != line_start:
            found = re.finditer("~~", self.text[line_start:line_end])
            self._tildes = (line_start, [line_start + m.start() for m in found])
        return bisect.bisect_right(self._tildes[1], pos - 2)

    def before_mark(self, pos: int, limit: int) -> int:
        """``limit``, or the start of the first «redacted N chars» mark before it."""
        if not self.has_marks:
            return limit
        found = MARK_RE.search(self.text, pos, limit)
        return limit if found is None else found.start()

    def quoted(self, pos: int) -> Span | None:
        """The inside of the quoted value opening at ``pos``, if it closes within its limit."""
        text = self.text
        close = text.find(text[pos], pos + 1, self.line(pos)[1])
        # '"passwd:" and "group:"' is two quoted names, not a quoted value.
        if close <= pos + 1 or text[pos + 1].isspace() or self.limit(pos, close) < close:
            return None
        return pos + 1, close

    def next_word(self, end: int) -> int | None:
        """Where the next word starts, if only spaces or tabs lie between it and ``end``."""
        text = self.text
        n = len(text)
        while end < n and text[end] in " \t":
            end += 1
        return end if end < n and text[end].isalnum() else None


# Common English function words: an unquoted "password: …" value containing one
# reads as a sentence ("password: the user forgot it again"), not a pass phrase.
_PROSE_WORDS = frozenset(
    """a an the to of in on at for from by with without and or but not no nor is are
    was were be been being am has have had do does did can could will would shall
    should may might must it its it's this that these those he she they we you i me
    my your our their his her them us if then than so as about into onto over under
    after before when where which who whom what how why all any each some only just
    also still now never always again there here same very too don't doesn't didn't
    isn't wasn't can't won't cannot since until every per via""".split()
)
# Ordinary words that say something about a password rather than being one
# ("the password is changed monthly", "password: required", "token: unlimited").
_DESCRIBING_WORDS = frozenset(
    """set unset reset new old same different wrong right correct incorrect valid invalid
    weak strong simple easy hard long short secure insecure safe unsafe good bad fine ok
    okay great terrible private public secret shared personal known unknown missing blank
    empty default temporary temp optional mandatory unique obvious complex complicated
    required needed case sensitive insensitive stored saved kept written lost gone
    forgotten compromised leaked expired expiring changed changing unchanged rotated
    rotating revoked disabled enabled encrypted hashed protected managed generated
    random unlimited pending working broken available unavailable ready enough
    hourly daily weekly monthly yearly annually quarterly minimum maximum min max
    2fa mfa sso otp totp wpa wpa2 wpa3 wep enterprise""".split()
)
# A value that starts with one of these tells where to get the secret ("wifi password:
# ask reception", "password: see 1Password"); it is not the secret.
_DIRECTIVE_WORDS = frozenset(
    "ask see check call contact email mail text message ping use get find look request read try".split()
)
_NUMBER_WORDS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty""".split()
)
_NUMBER_RE = lazy(r"\d+\+?")  # "12", "8+"
# Passes that are tickets, not passwords: "the boarding pass is BA0117".
_TICKET_WORDS = frozenset(
    """boarding bus train rail metro subway transit tram ferry ski season day week month
    year annual mountain hall backstage press museum gym park parking festival visitor
    travel lounge ticket""".split()
)
# "the password is 12 characters long": a number followed by a unit is a length.
_UNIT_RE = lazy(
    r"(?:characters?|chars?|digits?|letters?|symbols?|words?|bytes?|bits?"
    r"|days?|weeks?|months?|years?|hours?|minutes?)\b",
    re.IGNORECASE,
)
_PATH_RE = lazy(r"(?:~|\.\.?)/[\w.-]+(?:/[\w.-]*)*|/[\w.-]+/[\w./-]*")
_WORD_EDGE_PUNCT = "\"'`.,;:!?()[]{}<>"
_SENTENCE_END = ".,;"  # trailing punctuation that ends the sentence, not the value
_OPENER = {")": "(", '"': '"', "'": "'", "`": "`"}


def _value_end(text: str, start: int, end: int, trailing: str) -> int:
    """``end`` moved back over ``trailing`` punctuation and over a bracket or quote that
    closes one opened before the value ('she wrote "password is hunter2".')."""
    while end > start:
        last = text[end - 1]
        if last in trailing or last in _OPENER and _OPENER[last] not in text[start : end - 1]:
            end -= 1
        else:
            break
    return end


def _short_number(word: str) -> bool:
    """1 to 3 digits: followed by more words it is a count ("secret: 42 is the answer")."""
    return len(word) <= 3 and word.isdigit()


def _describes_a_secret(words: list[str]) -> bool:
    """Whether a value of several words (lower case, edge punctuation stripped) says
    what a secret is like or where it is, rather than being one.

    "ask reception", "see 1Password" (a directive first), "42 is the answer" (a short
    number first), "12 characters minimum", "four random words" (a number and a unit),
    "rotated yearly" (only ordinary words). A pass phrase such as "correct horse
    battery staple" is none of these.
    """
    first = words[0]
    if first in _DIRECTIVE_WORDS or _short_number(first):
        return True
    for i, word in enumerate(words):
        if (word in _NUMBER_WORDS or _NUMBER_RE.fullmatch(word)) and any(
            _UNIT_RE.fullmatch(unit) for unit in words[i + 1 : i + 3]
        ):
            return True
    return all(_ordinary_word(word) for word in words)


def _previous_word(text: str, pos: int) -> str:
    """The word just before ``pos`` (spaces skipped), lower case."""
    end = pos
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "-_"):
        start -= 1
    return text[start:end].lower()


def _ordinary_word(value: str) -> bool:
    """A function word or a word that describes a password (:data:`_DESCRIBING_WORDS`)."""
    lowered = value.lower()
    return lowered in _PROSE_WORDS or lowered in _DESCRIBING_WORDS


def _is_path(value: str) -> bool:
    """A file path (``pwd: /Users/maciej``, ``password: ~/secrets/db``) names, not holds."""
    return _PATH_RE.fullmatch(value) is not None


_WORD_RE = lazy(r"\S+")


def _line_value(text: str, start: int, end: int, mode: str) -> Span | None:
    """The secret part of an unquoted ``password: …`` value in ``text[start:end]``.

    ``mode`` ``"phrase"`` (password, passwd, passphrase): one word, or several with
    no function word (a pass phrase, possibly with a remark): all of it.
    ``"word"`` (secret, pwd): one word only. In every mode, and always in
    ``"strict"`` mode (a value after an earlier mark), a value that reads like a
    sentence gives only its first word, if that word looks like a password
    ("password: hunter2, the user changes it monthly"). A full stop or comma at
    the end is left.
    """
    if mode == "phrase":
        words = [m.span() for m in _WORD_RE.finditer(text, start, end)]
    else:  # only the first word counts, and whether there is a second one
        words = [m.span() for _, m in zip(range(2), _WORD_RE.finditer(text, start, end))]
    if not words:
        return None
    plain = [text[a:b].lower().strip(_WORD_EDGE_PUNCT) for a, b in words]
    prose = [word in _PROSE_WORDS for word in plain]
    whole = mode == "phrase" and not any(prose) or mode == "word" and len(words) == 1
    if whole or mode == "phrase" and len(words) == 1:
        if len(words) == 1 and prose[0] or len(words) > 1 and _describes_a_secret(plain):
            return None
        first, last = words[0][0], words[-1][1]
        last = _value_end(text, first, last, _SENTENCE_END)
        return (first, last) if last > first else None
    a, b = words[0]
    b = _value_end(text, a, b, ",;:)" + _SENTENCE_END)
    word = text[a:b]
    if word and looks_like_password(word) and not is_reference(word) and not _describes_a_secret(plain):
        return a, b
    return None


def _line_value_spans(scan: _Scan, start: int, end: int, mode: str) -> Iterator[Span]:
    """:func:`_line_value` for each stretch between «redacted N chars» marks.

    A value ends at a mark. Text after a mark (``password: «redacted 7 chars» hunter2``)
    is looked at on its own, in ``"strict"`` mode, so a second redaction finds
    nothing new in what the first one kept.
    """
    pos = start
    marks = MARK_RE.finditer(scan.text, start, end) if scan.has_marks else iter(())
    for m in (*marks, None):
        stop = end if m is None else m.start()
        if pos < stop:
            span = _line_value(scan.text, pos, stop, mode)
            if span is not None:
                yield span
        if m is None:
            return
        pos = m.end()
        mode = "strict"


def _is_passphrase(m: re.Match[str]) -> bool:
    """Whether the key is "passphrase" or "pass phrase": its value may be several plain words."""
    key = m.group("pw")
    return key is not None and "phrase" in key.lower()


def _passphrase_spans(scan: _Scan, start: int, end: int) -> Iterator[Span]:
    """The words after a passphrase key up to the end of their clause ("passphrase: correct horse battery
    staple, keep it safe"), judged as a ``password: …`` value is (:func:`_line_value`, ``"phrase"``): so
    "four random words", "ask reception" and "at least 4 words" stay."""
    clause = _CLAUSE_END_RE.search(scan.text, start, end)
    stop = end if clause is None else clause.start()
    while stop > start and scan.text[stop - 1] in " \t":
        stop -= 1
    for span in _line_value_spans(scan, start, stop, "phrase"):
        value = scan.text[span[0] : span[1]]
        if not (_ordinary_word(value) or _is_path(value) or is_reference(value)):  # "the passphrase is long"
            yield span


# The word before "_key" in names of keys that are no secret: a public key, a database's or a cache's key.
_NO_SECRET_KEY_WORDS = frozenset(
    """public publishable pub sort primary partition foreign cache idempotency object row hot routing shard lookup
    dedup dedupe index unique composite natural surrogate ssh gpg pgp kms""".split()
)
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _names_no_secret(text: str, key_start: int) -> bool:
    """Whether the word before ``_key``/``Key`` (``sort_key``, ``publicKey``) names a key that is no secret."""
    end = key_start if text[key_start].isupper() else key_start - 1  # camel case has no separator
    start = end
    while start > 0 and text[start - 1] in _NAME_CHARS:
        start -= 1
    word = text[start:end]
    if text[key_start].isupper():  # "cachePublicKey": the last camel-case word
        upper = max((i for i, c in enumerate(word) if c.isupper()), default=0)
        word = word[upper:]
    return word.lower() in _NO_SECRET_KEY_WORDS


def _generated_key(value: str) -> bool:
    """A value under any ``*_key`` name: one word that looks generated, longer than most ids."""
    if len(value) < 20 or any(c.isspace() for c in value):
        return False
    return random_token(value, 20) or len(value) >= 24 and plausible(value) and not value.isdigit()


def _letters_token(value: str, scan: _Scan, end: int) -> bool:
    """``token=abcdefghij``: 8+ ASCII letters after a token key, unless the value is a
    lower-case word with more words after it ("token: regenerated monthly")."""
    if len(value) < 8 or not (value.isascii() and value.isalpha()) or _ordinary_word(value):
        return False
    return not (value[1:].islower() and scan.next_word(end) is not None)


def _phrase_spans(scan: _Scan, m: re.Match[str]) -> Iterator[Span]:
    """The word after "password is", "pass is" or "API key is" (see the module docstring)."""
    text = scan.text
    if not left_ok(text, m.start()):
        return
    pos = m.end()
    if pos >= len(text):
        return
    if m.group("pass") and _previous_word(text, m.start()) in _TICKET_WORDS:
        return  # "the boarding pass is BA0117" is a flight
    if text[pos] in _QUOTES:
        inside = scan.quoted(pos)
        if inside is not None:
            value = text[inside[0] : inside[1]]
            if not is_reference(value) and (not m.group("tok") or random_token(value, 16)):
                yield inside
        return
    if _is_passphrase(m):  # "my passphrase is correct horse battery staple"
        yield from _passphrase_spans(scan, pos, scan.limit(pos))
        return
    word = _WORD_RE.match(text, pos)
    if word is None or m.group("tok") and len(word.group()) < 16:
        return  # (the value is at most the word: too short to look generated)
    start = pos
    end = scan.before_mark(pos, scan.limit(pos, word.end(), spaces=False))
    end = _value_end(text, start, end, _SENTENCE_END + ":")
    value = text[start:end]
    if not value or is_reference(value) or _is_path(value) or _ordinary_word(value):
        return
    if m.group("tok"):
        # In prose only a value that looks generated is a key ("the token is sha256-hashed" is not).
        if random_token(value, 16):
            yield start, end
        return
    # Trimmed punctuation or a boundary ends the clause; otherwise see if it goes on.
    following = scan.next_word(end) if end == word.end() else None
    if following is not None:
        if not looks_like_password(value) or _short_number(value):
            return
        if value.isdigit() and _UNIT_RE.match(text, following):
            return
    elif m.group("pass") and not looks_like_password(value):
        return  # "the pass is Stelvio": a plain word after "pass" is a mountain pass, not a password
    yield start, end


def assignment_spans(text: str, lowered: str) -> Iterator[Span]:
    """Values of ``password: …``, ``token=…``, ``"api_key": "…"``, "password is …" and friends.

    Every value ends at :meth:`_Scan.limit` (a `` · `` separator, a table cell, a
    closing ``~~``) and at a «redacted N chars» mark. Quoted values: the text
    inside the quotes. Unquoted values after a colon of a password or secret key:
    the rest of the region (pass phrases have spaces; see :func:`_line_value` for
    values that read as prose). Other unquoted values: one run of non-space
    characters. Token-like keys only count when the value looks like a key (see
    :func:`plausible`, and :func:`_letters_token` for ``token``); passwords and
    secrets count unless the value is a reference (``$DB_PASSWORD``), a path or a
    function word.
    """
    scan = _Scan(text)
    matches = list(_assignment_matches(text, lowered))
    starts = [m.start() for _, m in matches]
    bare_to = -1  # a key inside a bare value already read is part of it ("token=token=…" is read once)
    for is_phrase, m in matches:
        if m.start() < bare_to:
            continue
        if is_phrase:
            if _is_passphrase(m):  # its words run to the end of the clause: a later key inside them is one of them
                limit = scan.limit(m.end())
                clause = _CLAUSE_END_RE.search(text, m.end(), limit)
                bare_to = limit if clause is None else clause.start()
            yield from _phrase_spans(scan, m)
            continue
        group = "pw" if m.group("pw") else "short" if m.group("short") else "tok" if m.group("tok") else "gen"
        key = m.group(group).lower()
        pos = m.end()
        if group == "gen" and _names_no_secret(text, m.start()):
            continue
        if pos >= len(text):
            continue
        quote = text[pos]
        spans: Iterator[Span] | tuple[Span, ...]
        if quote in _QUOTES:
            inside = scan.quoted(pos)
            if inside is None:
                continue
            spans = (inside,)
        elif group not in ("tok", "gen") and m.group("sep") == ":" or _is_passphrase(m):
            # The value also ends where the next key on its line begins.
            following = bisect.bisect_left(starts, pos)
            end = scan.limit(pos, starts[following] if following < len(starts) else None)
            while end > pos and text[end - 1] in " \t":
                end -= 1
            if _is_passphrase(m):
                spans = _passphrase_spans(scan, pos, end)
            else:
                spans = _line_value_spans(scan, pos, end, "phrase" if group == "pw" else "word")
        else:
            bare = (_BARE_VALUE_RE if group in ("tok", "gen") else _BARE_PASSWORD_RE).match(text, pos)
            if not bare:
                continue
            bare_to = bare.end()
            end = scan.before_mark(pos, scan.limit(pos, bare.end(), spaces=False))
            while end > pos and text[end - 1] in _SENTENCE_END:
                end -= 1
            spans = ((pos, end),)
        for start, end in spans:
            if start >= end:
                continue
            value = text[start:end]
            if is_reference(value):
                continue
            if group == "gen":
                if _generated_key(value):
                    yield start, end
            elif group == "tok":
                if plausible(value) or key == "token" and _letters_token(value, scan, end):
                    yield start, end
            elif quote in _QUOTES:
                if value.lower() not in _PROSE_WORDS:
                    yield start, end
            elif not _ordinary_word(value) and not _is_path(value):
                yield start, end
