"""Words for recall and search: tokens in any script, content words and stop words.

Spec: memory.md, "Recall before each turn" ("Any matching word counts; a message with five or more
content words needs two per hit") and "What a bot knows about its other conversations" (the words of
`session_search`).

Every text (a note, a message, a query) becomes *terms* the same way, so a query term matches an
index term exactly:

- NFKC (full-width letters become plain ones), then casefold; Latin, Greek and Cyrillic diacritics
  are dropped (``café`` = ``cafe``, ``ё`` = ``е``); marks of other scripts (Devanagari vowel signs)
  stay part of their word.
- A word is a run of letters, digits and marks; an apostrophe inside one is kept long enough to
  drop ``'s`` and a French/Italian elision (``l'hôtel`` -> ``hotel``).
- Chinese, Japanese and Korean are written without spaces between words (or, for Korean, with
  particles attached), so a run of those characters becomes its overlapping two-character pieces
  (``会議室`` -> ``会議``, ``議室``); a single character stands alone. Such a run counts as one content
  word per two characters for the five-word rule.
- A text's language is told by its stop words (English in full, the commonest function words of French,
  German, Spanish, Italian, Portuguese, Dutch and Russian): another language when the text holds at least
  two of its stop words and more than English ones (Cyrillic text with no English word is Russian); else
  English. Only that language's stop words, and one-character words, are not content words: ``er``, ``met``
  and ``son`` are English content words.
- A word's term is its Snowball stem in the text's language (``hiking``, ``hiked`` -> ``hike``;
  ``invoices`` -> ``invoic``), so a word matches its inflections. The index stores a text in another
  language with its English stems too (`indexed_terms`), so a query too short to tell its language, stemmed
  as English, still finds the words as written.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

import Stemmer

from ..base.patterns import lazy

# Bump when terms come out differently: indexes built with another version are rebuilt.
TOKENIZER_VERSION = 2

# How many content words make a message "long": from then on a hit needs two of them.
LONG_MESSAGE_WORDS = 5

_ENGLISH = """
a about above after again against ago all almost along already also although always am among an and
another any anybody anyone anything anyway anywhere are aren around as ask asked asking at away back
be became because become been before being below best better between both but by can cannot could
couldn did didn do does doesn doing don done down during each either else enough etc even ever every
everyone everything few find for from further get gets getting give given go goes going gone got
gotten had hadn has hasn have haven having he hello her here hers herself hey hi him himself his how
however i if in indeed instead into is isn it its itself just keep kind know known knows last least
less let like likely look looking lot lots made make makes making many may maybe me mean meant might
mine more most mostly much must my myself need needs neither never new next no nobody none nor not
nothing now of off often oh ok okay on once one only onto or other others otherwise our ours
ourselves out over own per perhaps please put quite rather re really remember remind right said same
say says see seem seemed seems shall she should shouldn since so some somebody someone something
sometimes somewhere soon still such sure take tell than thank thanks that the their theirs them
themselves then there these they thing things think this those though through thus till to today told
too toward towards try trying under until up upon us use used using very via want wanted wants was
wasn way we well went were weren what whatever when whenever where whether which while who whoever
whole whom whose why will with within without won would wouldn yeah yes yet you your yours yourself
yourselves don't i'm i've i'd i'll you're you've you'd you'll he's she's it's we're we've we'd we'll
they're they've they'd they'll that's there's what's who's let's can't won't isn't aren't wasn't
weren't haven't hasn't hadn't doesn't didn't couldn't shouldn't wouldn't
"""

# The commonest function words of the languages told apart by them (docs/recall.md, "Words"): a text is in one of
# these when it holds at least two of its words and more than of the English ones; only then do they stop.
_OTHER_LANGUAGES = {
    "french": """
au aux avec ce ces cette dans de des du elle elles en est et eux il ils je la le les leur leurs lui
ma mais me meme mes moi mon ne nos notre nous ou par pas pour qu que qui sa se ses son sur ta te tes
toi ton tu un une vos votre vous ete etait sont suis avez avons fait faire tres plus
""",
    "german": """
aber als am an auch auf aus bei bin bis bist da dann das dass dem den der des die doch dort du durch
ein eine einem einen einer eines er es fur hat hatte ich ihr im in ist ja kann mich mir mit nach
nicht noch nur ob oder sich sie sind so uber um und uns von vor war waren was wenn wie wir wird zu zum
zur
""",
    "spanish": """
al algo como con cual cuando del donde el ella ellas ellos en entre era eres es esa ese eso esta
estaba estan este esto fue ha hay la las le les lo los mas mi muy nada ni no nos nosotros o para pero
por porque que quien se ser si sin sobre son su sus tambien te tiene tu un una uno unos y ya yo
""",
    "italian": """
ai alla alle anche che chi ci come con cui da dal dalla dei del della delle di gli ha ho il io la le
lei lo loro lui ma mi ne nel nella non per piu questa questo se si sono su sua suo tu tutto un una
uno voi
""",
    "portuguese": """
ao aos as com da das de do dos ela elas ele eles em era essa esse esta este eu foi isso isto mais me
mesmo meu minha na nao nas no nos num numa os ou para pela pelo por quando que se sem seu sua tambem
te tem um uma voce
""",
    "dutch": """
aan al alles als bij dat de die dit een en er het hij hoe ik in is je kan maar me met mijn naar niet
nog nu of om ook op over te tot uit van voor was wat we wel wij zijn ze zich zo
""",
    "russian": """
а без бы был была были было быть в вам вас вот все всё вы где да для до его ее её ей если есть ещё
еще же за и из или им их к как когда кто ли мне мы на над не нет ни но ну о об он она они оно от по
под при с со так также там то тоже только ты у уже хорошо что чтобы это эта этот я
""",
}

_ELISION_PREFIXES = frozenset({"l", "d", "j", "qu", "c", "n", "s", "m", "t", "dell", "nell", "all", "sull"})

# Scripts written without spaces between words get two-character pieces.
_CJK_RANGES = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3130, 0x318F),  # Hangul compatibility Jamo
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x3134F),  # CJK extensions B-G
)
_CJK_CLASS = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_RANGES)
# compiled at first use (non-ASCII text only): the CJK ranges cost a hook a millisecond at every prompt
_CJK_SPLIT = lazy(f"([{_CJK_CLASS}]+)")
_COMBINING_DIACRITICS = re.compile("[\u0300-\u036f]")
# The apostrophes a word may hold: the typed one, and the typographic ones folding turns into it.
APOSTROPHES = "'\u2019\u02bc\u2018"
# Punctuation common in notes (the entries' " · ", dashes, quotes): spaces, so mostly-English text
# stays on the fast ASCII path.
# (Two regular expressions rather than str.translate, ten times slower on such text: the index reads every note.)
_SPACED_PUNCTUATION = re.compile("[\u00b7\u2013\u2014\u201c\u201d\u201e\u00ab\u00bb\u2026\u2022\u00a0\u2192]")
_TYPOGRAPHIC_APOSTROPHES = re.compile(f"[{APOSTROPHES[1:]}]")


def fold(text: str) -> str:
    """Casefold, NFKC and drop Latin/Greek/Cyrillic diacritics: the form every term is compared in."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKC", text).casefold()
    decomposed = unicodedata.normalize("NFD", text)
    stripped = _COMBINING_DIACRITICS.sub("", decomposed)
    return unicodedata.normalize("NFC", stripped)


@functools.cache
def _word_pattern(apostrophes: str = "'") -> re.Pattern[str]:
    """Letters, digits and combining marks of any script (Python's \\w leaves marks out), apostrophes inside."""
    char = _word_char_class()
    apostrophe = re.escape(apostrophes) if len(apostrophes) == 1 else f"[{re.escape(apostrophes)}]"
    return re.compile(f"{char}+(?:{apostrophe}{char}+)*")


@functools.cache
def _word_char_class() -> str:
    marks = []
    start = None
    for code in range(0x300, 0x10000):
        is_mark = unicodedata.category(chr(code)).startswith("M")
        if is_mark and start is None:
            start = code
        elif not is_mark and start is not None:
            marks.append((start, code - 1))
            start = None
    mark_class = "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in marks)
    return f"(?:[^\\W_]|[{mark_class}])"


def word_spans(text: str, start: int = 0) -> Iterator[tuple[int, int]]:
    """Where each word of ``text`` stands, as written (any case, any apostrophe), from ``start`` on.

    These are the runs the terms are read from: ``terms(text[begin:end])`` gives a word's terms, so a
    caller can find where a term was written without a pattern of its own.
    """
    for match in _word_pattern(APOSTROPHES).finditer(text, start):
        yield match.span()


_ASCII_WORD = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")


def _folded_words(text: str) -> frozenset[str]:
    words = set()
    for word in text.split():
        folded = fold(word)
        words.add(folded)
        words.add(folded.replace("'", ""))
    return frozenset(words)


ENGLISH = "english"
LANGUAGES = (ENGLISH, *_OTHER_LANGUAGES)
# Each language's stop words, folded like terms; a text's own language's are the ones left out of it.
STOPS: dict[str, frozenset[str]] = {ENGLISH: _folded_words(_ENGLISH)} | {
    language: _folded_words(text) for language, text in _OTHER_LANGUAGES.items()
}
STOP_WORDS = frozenset().union(*STOPS.values())  # a stop word of any language
_STOP_LANGUAGES: dict[str, tuple[str, ...]] = {
    word: tuple(language for language in LANGUAGES if word in STOPS[language]) for word in STOP_WORDS
}
LANGUAGE_MIN_STOP_WORDS = 2  # a text is in another language when it holds at least two of its stop words …
_CYRILLIC = lazy("[\u0400-\u04ff]")


# The stop words of other languages that are not English ones: a text holding none is English (or Russian, below).
_FOREIGN_ONLY = STOP_WORDS - STOPS[ENGLISH]


def _language_of_tokens(tokens: list[str]) -> str:
    """… and more of them than of English ones; else English, or Russian for Cyrillic text with no English word."""
    if any(map(_FOREIGN_ONLY.__contains__, tokens)):  # most text holds none: no need to count (in C, till the first)
        counts = dict.fromkeys(LANGUAGES, 0)
        for token in tokens:
            for language in _STOP_LANGUAGES.get(token, ()):
                counts[language] += 1
        english = counts.pop(ENGLISH)
        best = max(counts, key=counts.__getitem__)  # the first of LANGUAGES on a tie
        if counts[best] >= LANGUAGE_MIN_STOP_WORDS and counts[best] > english:
            return best
    return "russian" if _cyrillic_with_no_english_word(tokens) else ENGLISH


def _cyrillic_with_no_english_word(tokens: list[str]) -> bool:
    joined = " ".join(tokens)
    if joined.isascii():  # (most text: one check in C)
        return False
    return _CYRILLIC.search(joined) is not None and not any(map(STOPS[ENGLISH].__contains__, tokens))


def language_of(text: str) -> str:
    """The language a text's words are stemmed and stopped in (one of LANGUAGES)."""
    return _language_of_tokens(_raw_words(_folded(text)))


_stemmers: dict[str, Stemmer.Stemmer] = {}
_stemmer_guard = threading.Lock()  # a PyStemmer object must not be used by two threads at once


@functools.lru_cache(maxsize=1 << 17)
def stem(word: str, language: str = ENGLISH) -> str:
    """A folded word's Snowball stem in a language (``hiking`` and ``hiked`` -> ``hike``); numbers stay."""
    if word.isdigit():
        return word
    with _stemmer_guard:
        stemmer = _stemmers.get(language)
        if stemmer is None:
            stemmer = _stemmers[language] = Stemmer.Stemmer(language, 0)  # (its own cache off: this one serves)
        found = stemmer.stemWord(word)
    return found or word


@dataclass(frozen=True)
class Word:
    """One content word of a text: its term (what is matched) and the form it was written in."""

    term: str
    surface: str


def _raw_words(folded: str) -> list[str]:
    pattern = _ASCII_WORD if folded.isascii() else _word_pattern()
    return pattern.findall(folded)


def _split_word(token: str) -> list[tuple[str, bool]]:
    """A token as (piece, is_cjk) pieces: CJK runs apart from the rest."""
    if token.isascii():
        return [(token, False)]
    return [(piece, bool(_CJK_SPLIT.fullmatch(piece))) for piece in _CJK_SPLIT.split(token) if piece]


def _clean(token: str, stops: frozenset[str]) -> str | None:
    """Apostrophes, stop words and length: the folded word a non-CJK token stands for, or None."""
    if "'" in token:
        if token in stops:
            return None
        if token.endswith("'s"):
            token = token[:-2]
        head, _, tail = token.partition("'")
        if head in _ELISION_PREFIXES and tail:
            token = tail
        token = token.replace("'", "")
    if token in stops:
        return None
    if len(token) < 2:
        return None
    return token


def _uncached_term(token: str, language: str) -> str | None:
    """The term of a non-CJK token in a language: its stem, or None for a stop word or a one-letter word."""
    cleaned = _clean(token, STOPS[language])
    return None if cleaned is None else stem(cleaned, language)


# One cache per language, called with the token alone (a tuple key per call cost the index a tenth of its time).
_TERM_OF = {
    language: functools.lru_cache(maxsize=1 << 16)(functools.partial(_uncached_term, language=language))
    for language in LANGUAGES
}


def _term(token: str, language: str) -> str | None:
    return _TERM_OF[language](token)


def _cjk_terms(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _folded(text: str) -> str:
    if text.isascii():
        return text.lower()
    text = _SPACED_PUNCTUATION.sub(" ", text)
    if text.isascii():
        return text.lower()
    return fold(_TYPOGRAPHIC_APOSTROPHES.sub("'", text))


def words(text: str, language: str | None = None) -> list[Word]:
    """The content words of a text, in order, each term once; stop words and one-letter words left out.

    `language` is the text's (found by `language_of` when not given): its stop words are left out and its
    stemmer makes the terms.
    """
    folded = _folded(text)
    tokens = _raw_words(folded)
    language = language or _language_of_tokens(tokens)
    seen: set[str] = set()
    out: list[Word] = []
    for token in tokens:
        for piece, is_cjk in _split_word(token):
            if is_cjk:
                for pair in _cjk_terms(piece):
                    if pair not in seen:
                        seen.add(pair)
                        out.append(Word(pair, pair))
                continue
            term = _term(piece, language)
            if term is not None and term not in seen:
                seen.add(term)
                out.append(Word(term, piece))
    return out


def terms(text: str, language: str | None = None) -> list[str]:
    """The distinct terms of a text, in order: what a query looks for (see `indexed_terms` for what is stored)."""
    folded = _folded(text)
    if not folded.isascii():
        return [word.term for word in words(text, language)]
    # Plain ASCII (most notes and messages): `words`' result without building a Word per term, which
    # was most of the time the index took to read a file (docs/recall.md, "Speed").
    tokens = _ASCII_WORD.findall(folded)
    language = language or _language_of_tokens(tokens)
    found = dict.fromkeys(map(_TERM_OF[language], tokens))  # each term once, in order, in C
    found.pop(None, None)  # the tokens that are no term
    return list(found)  # type: ignore[arg-type]  # None was popped above: every key left is a term


def indexed_terms(text: str) -> list[str]:
    """What the index stores for a text: its terms and, for a text in another language, the English stems of the
    same words too, so that a short query whose language cannot be told (stemmed as English) still finds it."""
    language = language_of(text)
    found = words(text, language)
    if language == ENGLISH:
        return [word.term for word in found]
    english = (stem(_clean(word.surface, frozenset()) or word.term) for word in found)
    return list(dict.fromkeys([*(word.term for word in found), *english]))


def content_word_count(text: str) -> int:
    """How many content words a message has, for the five-word rule.

    A run of CJK characters counts as one word per two characters (rounded up), since its terms are
    overlapping two-character pieces rather than words.
    """
    folded = _folded(text)
    tokens = _raw_words(folded)
    language = _language_of_tokens(tokens)
    seen: set[str] = set()
    count = 0
    for token in tokens:
        for piece, is_cjk in _split_word(token):
            if is_cjk:
                if piece not in seen:
                    seen.add(piece)
                    count += (len(piece) + 1) // 2
                continue
            term = _term(piece, language)
            if term is not None and term not in seen:
                seen.add(term)
                count += 1
    return count


def matches_needed(text: str) -> int:
    """Spec, "Recall before each turn": any matching word counts; five or more content words need two per hit."""
    return 2 if content_word_count(text) >= LONG_MESSAGE_WORDS else 1
