"""Content words, stop words and tokens in any script (spec: "Recall before each turn")."""

from __future__ import annotations

import unicodedata

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from support.words import assert_clean_terms

from omb_tui.core.index.words import (
    STOPS,
    content_word_count,
    fold,
    indexed_terms,
    language_of,
    matches_needed,
    terms,
    word_spans,
    words,
)


def test_stop_words_and_one_letter_words_are_not_content_words():
    assert terms("What did we say about the budget, and is it OK?") == ["budget"]
    assert terms("I a x") == []


def test_a_word_matches_its_inflections():
    assert terms("hike hiking hiked hikes") == terms("hike")
    assert terms("invoices companies classes boxes matches flights") == terms("invoice company class box match flight")
    assert terms("thrilled") != terms("excited")  # a stem, not a synonym
    # words that only look inflected keep apart from the ones they look like
    assert terms("bus") != terms("busy") and terms("news") != terms("new")


def test_a_foreign_stop_list_never_removes_a_word_from_an_english_text():
    assert language_of("I met my son at the lake, er, by the pier") == "english"
    assert terms("I met my son at the lake") == terms("met son lake")
    assert len(terms("met son lake")) == 3
    assert "er" in terms("Her ER visit")  # "er" is German and Dutch for "he"


def test_a_text_in_another_language_is_stemmed_and_stopped_in_it():
    assert language_of("Wann ist der Termin für die Rechnungen?") == "german"
    assert terms("Wann ist der Termin für die Rechnungen?") == terms("Wann ist der Termin für die Rechnung?")
    assert language_of("Où est la réunion de mardi?") == "french"
    assert language_of("Привет! Встреча в Москве") == "russian"
    assert language_of("Москве") == "russian"  # Cyrillic with no English word
    assert language_of("Zoom: встреча в Москве") == language_of("Zoom встреча") == "russian"  # whatever comes first
    assert terms("Встреча в Москве, как дела?") == terms("встреча в Москва, как дела?")


def test_a_short_query_whose_language_cannot_be_told_still_finds_the_word_as_written():
    # "Rechnungen" alone is stemmed as English; the German note holds its English stems too
    stored = set(indexed_terms("Die Rechnungen für den Kunden sind bezahlt"))
    assert set(terms("Rechnungen")) <= stored
    assert set(terms("Kunden")) <= stored
    assert set(terms("Woche")) <= set(indexed_terms("Die nächste Woche ist voll und die Kunden warten"))
    # and an English text stores just its terms
    assert indexed_terms("the hiking trip") == terms("the hiking trip")


def test_apostrophes_possessives_and_elisions():
    assert terms("Milind's plan") == ["milind", "plan"]
    assert terms("Milind\u2019s plan") == ["milind", "plan"]
    assert terms("l'hôtel dell'arte") == terms("hotel arte")
    assert terms("don't won't it's") == []


def test_numbers_of_two_digits_or_more_are_content():
    assert terms("Invoice 4411 due in 2026, 7 days") == terms("invoice") + ["4411", "due", "2026"] + terms("day")


def test_accented_latin_matches_without_accents():
    assert terms("Café in Zürich, São Paulo, naïve") == terms("cafe in zurich, sao paulo, naive")
    assert fold("ÉCOLE") == "ecole"
    assert terms("Straße") == terms("strasse")


def test_cyrillic_words_and_russian_stop_words():
    assert terms("Привет! Встреча в Москве, как дела?") == terms("привет встреча москве дела")
    assert len(terms("Привет! Встреча в Москве, как дела?")) == 4
    assert terms("ёлка") == terms("елка")


def test_cjk_runs_become_two_character_pieces():
    assert terms("会議室") == ["会議", "議室"]
    assert terms("東京") == ["東京"]
    assert terms("猫") == ["猫"]
    # Japanese kana and Korean too; a Latin word inside stays whole
    assert "会議" in terms("明日の会議について")
    assert terms("회의를 내일") == ["회의", "의를", "내일"]
    assert terms("iPhone手机") == terms("iphone") + ["手机"]


def test_cjk_counts_one_word_per_two_characters():
    assert content_word_count("会議室") == 2
    assert content_word_count("東京での会議について") == 5
    assert matches_needed("東京での会議について") == 2
    assert matches_needed("会議") == 1


def test_other_scripts_keep_their_marks():
    assert terms("हिन्दी में बात") == ["हिन्दी", "में", "बात"]
    assert terms("مرحبا بالعالم") == ["مرحبا", "بالعالم"]


def test_five_content_words_need_two_matches():
    assert content_word_count("Lisbon hotel dinner budget") == 4
    assert matches_needed("What was the Lisbon hotel dinner budget?") == 1
    assert content_word_count("Lisbon hotel dinner budget flights") == 5
    assert matches_needed("Lisbon hotel dinner budget flights") == 2
    # repeated words count once; stop words never
    assert content_word_count("Lisbon Lisbon lisbon and the of") == 1


def test_words_keep_the_form_they_were_written_in():
    found = words("The Invoices from ACME")
    assert [(w.term, w.surface) for w in found] == [(terms("invoice")[0], "invoices"), ("acm", "acme")]


def test_stop_words_are_folded_like_terms():
    assert "fur" in STOPS["german"]  # "für", folded
    assert terms("für die Kunden") == terms("Kunden", "german")


def test_odd_text_never_fails():
    for text in ["", "   ", "🙂🚀", "\udcff\udcfe bytes", "a\u0301", "x" * 10000, "\x00\x01", "ﾃｽﾄ", "ＡＢＣ"]:
        terms(text)
        content_word_count(text)
    assert terms("ＡＢＣ") == ["abc"]


def test_a_word_whose_stem_is_spelled_like_a_stop_word_is_still_a_content_word():
    # "ORS" (oral rehydration salts) stems to "or": a term only words that stem to it give, never the stop word "or"
    assert terms("ORS") == terms("ors") == ["or"]
    assert terms("or") == [] and terms("salt or sugar") == terms("salt sugar")
    assert set(terms("ORS")) <= set(indexed_terms("Pack ORS sachets for the trip"))
    assert not set(terms("this or that")) & set(indexed_terms("Pack ORS sachets for the trip"))
    assert content_word_count("ORS") == 1
    assert terms("kindness") == terms("kinds") != []  # "kind" is a stop word; its family's stem still matches


# Words whose stem is spelled like a stop word of the text's language, found by exploring (docs/testing.md).
@example("ORS")
@example("IDs")  # "id": "I'd" without its apostrophe is a stop word
@example("ºRs")  # NFKC makes the ordinal sign an "o"
@example("the ins and outs")
@example("Ik wacht op de ops")  # Dutch: "ops" stems to "op"
@example("Wir sind aufs Dach")  # German: "aufs" stems to "auf"
@example("Eu tomo uma dose")  # Portuguese: "dose" stems to "dos"
@settings(max_examples=300)
@given(st.text())
def test_any_text_gives_clean_terms(text):
    assert_clean_terms(text)


def test_word_spans_find_each_word_as_written():
    text = "Milind’s l'HÔTEL, दिल्ली and 会議室 — top_secret"
    spans = [text[begin:end] for begin, end in word_spans(text)]
    assert spans == ["Milind’s", "l'HÔTEL", "दिल्ली", "and", "会議室", "top", "secret"]
    assert [text[begin:end] for begin, end in word_spans(text, text.index("and"))] == ["and", "会議室", "top", "secret"]


@settings(max_examples=500)
@given(st.text())
def test_the_words_at_word_spans_give_exactly_the_terms_of_the_text(text):
    # NFKC can turn one character into a word (the sign ㈪ into "(月)"): spans are read in the text as written
    assume(unicodedata.normalize("NFKC", text) == text)
    language = language_of(text)  # each word in the text's language
    found = {term for begin, end in word_spans(text) for term in terms(text[begin:end], language)}
    assert found == set(terms(text))
