"""What every text's terms must be, checked by the words' repeatable property tests and by the explore tier."""

from __future__ import annotations

from omb_tui.core.index.words import STOPS, content_word_count, language_of, terms, words


def assert_clean_terms(text: str) -> None:
    """What every text's terms are: distinct, whole, of content words only, the same on every call."""
    language = language_of(text)
    found = terms(text)
    assert len(found) == len(set(found))
    for term in found:
        assert term and not any(ch.isspace() for ch in term)
        # the index's FTS tokenizer splits on ASCII punctuation: a term never holds any
        assert all(ch.isalnum() for ch in term if ch.isascii())
    # no stop word is a content word; a stem may be spelled like one ("ors" -> "or"), which only its own words give
    content = words(text, language)
    assert not [word.surface for word in content if word.surface in STOPS[language]]
    assert found == [word.term for word in content]  # the fast path for plain ASCII gives the same terms
    # a term found once is found again in the same text (index and query agree)
    assert terms(text) == found
    assert content_word_count(text) >= 0
