"""The explore tier: the words' properties on fresh random text, many examples, run by hand with `--explore`.

Never in the default run (docs/testing.md): what it finds becomes an `@example` of the repeatable test in
tests/core/index/test_words.py, which every run then checks.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from support.words import assert_clean_terms

from omb_tui.core.index.words import LANGUAGES, STOPS, language_of, terms, word_spans

# Endings that make a stem land elsewhere: where a content word's stem meets a stop word ("ors" -> "or").
ENDINGS = ("", "s", "es", "ed", "ing", "ly", "ness", "'s", "e")
LETTERS = "abcdefghijklmnopqrstuvwxyzäöüßéèàçñ"


@st.composite
def word_like_text(draw) -> str:
    """Stop words of one language, short letter runs and stop words with endings, in any case."""
    stops = sorted(STOPS[draw(st.sampled_from(LANGUAGES))])
    word = st.one_of(
        st.sampled_from(stops),
        st.builds(str.__add__, st.sampled_from(stops), st.sampled_from(ENDINGS)),
        st.builds(str.__add__, st.text(LETTERS, min_size=1, max_size=5), st.sampled_from(ENDINGS)),
    )
    cased = st.builds(lambda text, how: getattr(text, how)(), word, st.sampled_from(["lower", "upper", "title"]))
    return " ".join(draw(st.lists(cased, min_size=1, max_size=12)))


@given(word_like_text())
def test_word_like_text_in_any_language_gives_clean_terms(text):
    assert_clean_terms(text)


@given(st.text())
def test_any_text_gives_clean_terms(text):
    assert_clean_terms(text)


@given(word_like_text())
def test_the_words_at_word_spans_give_the_terms_of_word_like_text(text):
    language = language_of(text)
    found = {term for begin, end in word_spans(text) for term in terms(text[begin:end], language)}
    assert found == set(terms(text))
