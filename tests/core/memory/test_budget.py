"""The budget: the load cut, expired entries, the gauge, the topic index and the prompt block."""

from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from omb_tui.core.memory.budget import (
    CUT_BY_BYTES,
    CUT_BY_LINES,
    INDEX_CUT_BY_CHARACTERS,
    INDEX_CUT_BY_TOPICS,
    LINE_EXPIRED,
    LINE_LOADS,
    LINE_PAST_CUT,
    MEMORY_MAX_BYTES,
    MEMORY_MAX_LINES,
    TOPIC_INDEX_MAX_CHARS,
    TOPIC_INDEX_MAX_TOPICS,
    TopicInfo,
    gauge,
    load_cut,
    loaded_memory,
    prompt_block,
    prompt_block_if_enabled,
    read_topic_info,
    topic_index,
    utf8_size,
)
from omb_tui.core.memory.entries import split_lines

TODAY = date(2026, 9, 29)


def numbered_lines(count: int) -> str:
    return "".join(f"line {number}\n" for number in range(count))


def test_limits_are_the_spec_numbers():
    assert (MEMORY_MAX_LINES, MEMORY_MAX_BYTES) == (200, 24_576)


def test_exactly_200_lines_all_load():
    cut = load_cut(numbered_lines(200))
    assert (cut.lines_loaded, cut.lines_not_loaded, cut.cut_off) == (200, 0, False)


def test_the_201st_line_does_not_load():
    text = numbered_lines(201)
    cut = load_cut(text)
    assert (cut.lines_total, cut.lines_loaded, cut.lines_not_loaded, cut.cut_off) == (201, 200, 1, True)
    assert cut.loaded_text == numbered_lines(200)


def test_a_last_line_without_newline_counts_as_a_line():
    cut = load_cut(numbered_lines(200) + "tail")
    assert cut.lines_total == 201
    assert cut.lines_not_loaded == 1


def test_the_line_that_would_cross_the_byte_limit_does_not_load():
    first = "a" * (MEMORY_MAX_BYTES - 10) + "\n"
    fits = "b" * 8 + "\n"  # brings the total to exactly 24,576 bytes
    crosses = "c\n"
    exact = load_cut(first + fits)
    assert (exact.bytes_loaded, exact.cut_off) == (MEMORY_MAX_BYTES, False)
    over = load_cut(first + fits + crosses)
    assert (over.lines_loaded, over.bytes_loaded, over.lines_not_loaded) == (2, MEMORY_MAX_BYTES, 1)


def test_multibyte_characters_count_as_utf8_bytes():
    line = "ž" * 100 + "\n"  # 201 bytes, 101 characters
    assert utf8_size(line) == 201
    text = line * 200
    cut = load_cut(text)
    assert cut.bytes_total == 200 * 201
    assert cut.lines_loaded == MEMORY_MAX_BYTES // 201
    assert cut.bytes_loaded <= MEMORY_MAX_BYTES


def test_crlf_endings_count_their_bytes():
    assert load_cut("a\r\nb\r\n").bytes_total == 6


def test_a_single_huge_first_line_loads_nothing():
    cut = load_cut("x" * (MEMORY_MAX_BYTES + 1) + "\nsmall\n")
    assert (cut.lines_loaded, cut.lines_not_loaded, cut.loaded_text) == (0, 2, "")


def test_whichever_limit_cuts_first():
    short_lines = numbered_lines(300)  # lines cut first
    assert load_cut(short_lines).lines_loaded == 200
    long_lines = ("y" * 199 + "\n") * 150  # 200 bytes a line: bytes cut first, at 122 lines
    cut = load_cut(long_lines)
    assert cut.lines_loaded == MEMORY_MAX_BYTES // 200
    assert cut.lines_loaded < 150


def test_empty_file():
    cut = load_cut("")
    assert (cut.lines_total, cut.bytes_total, cut.lines_loaded, cut.cut_off) == (0, 0, 0, False)
    assert gauge("").level == "ok"


def test_expired_entry_loads_on_its_until_date_and_not_the_day_after():
    text = "# Memory\n- 2026-09-20 · in Rome · until 2026-09-28\n  hotel by the station\n- likes tea\n"
    on_the_day = loaded_memory(text, date(2026, 9, 28))
    assert on_the_day == text
    after = loaded_memory(text, date(2026, 9, 29))
    assert after == "# Memory\n- likes tea\n"


def test_expired_entry_partly_inside_the_cut_is_left_out():
    text = numbered_lines(199) + "- 2026-09-01 · trip · until 2026-09-05\n  owned line\n"
    assert load_cut(text).lines_loaded == 200
    assert loaded_memory(text, TODAY) == numbered_lines(199)


def test_live_entry_partly_inside_the_cut_keeps_only_its_loaded_lines():
    text = numbered_lines(199) + "- 2026-09-01 · steps\n  step one\n"
    assert loaded_memory(text, TODAY) == numbered_lines(199) + "- 2026-09-01 · steps\n"


def test_the_cut_says_which_limit_cut_it():
    assert load_cut(numbered_lines(200)).cut_by is None
    assert load_cut(numbered_lines(201)).cut_by == CUT_BY_LINES
    assert load_cut(("y" * 199 + "\n") * 150).cut_by == CUT_BY_BYTES
    # 200 lines of exactly 24,576 bytes, then one more: both limits cut it, and the line count is named
    full = ("y" * 121 + "\n") * 199 + "y" * (MEMORY_MAX_BYTES - 122 * 199 - 1) + "\n"
    assert (load_cut(full).bytes_total, load_cut(full).lines_total) == (MEMORY_MAX_BYTES, MEMORY_MAX_LINES)
    assert load_cut(full + "z\n").cut_by == CUT_BY_LINES


def test_each_line_has_its_state_on_the_day_asked_for():
    text = numbered_lines(198) + "- 2026-09-01 · trip · until 2026-09-05\n  owned line\n  past the cut\n"
    cut = load_cut(text, TODAY)
    states = [line.state for line in cut.lines]
    assert states == [LINE_LOADS] * 198 + [LINE_EXPIRED, LINE_EXPIRED, LINE_PAST_CUT]
    assert [line.number for line in cut.lines] == list(range(1, 202))
    assert cut.lines[198].until == date(2026, 9, 5) and cut.lines[0].until is None
    assert [line.ends_entry for line in cut.lines[197:]] == [True, False, False, True]
    assert cut.lines[199].text == "  owned line\n"  # as in the file, ending included
    on_its_day = load_cut(text, date(2026, 9, 5))
    assert [line.state for line in on_its_day.lines[198:]] == [LINE_LOADS, LINE_LOADS, LINE_PAST_CUT]
    assert load_cut(text).lines == ()  # no day, no expiry: the counts only


def test_the_byte_cut_marks_every_line_after_it():
    text = "- 2026-01-01 · old · until 2026-01-02\n" + "x" * 30_000 + "\n- after\n"
    cut = load_cut(text, date(2026, 1, 2))
    assert cut.cut_by == CUT_BY_BYTES
    assert [line.state for line in cut.lines] == [LINE_LOADS, LINE_PAST_CUT, LINE_PAST_CUT]
    assert load_cut(text, date(2026, 1, 3)).lines[0].state == LINE_EXPIRED  # the day after its until date


def test_expired_entries_are_counted_by_the_gauge_and_never_make_it_red():
    text = "- 2026-09-01 · trip · until 2026-09-05\n" * 10
    assert loaded_memory(text, TODAY) == ""
    reading = gauge(text)
    assert reading.lines == 10
    assert reading.level == "ok"
    assert reading.lines_not_loaded == 0


def test_gauge_levels_by_lines():
    assert gauge(numbered_lines(159)).level == "ok"
    assert gauge(numbered_lines(160)).level == "amber"
    assert gauge(numbered_lines(200)).level == "amber"
    red = gauge(numbered_lines(203))
    assert (red.level, red.lines_not_loaded) == ("red", 3)


def test_gauge_levels_by_bytes():
    amber_from = -(-MEMORY_MAX_BYTES * 8 // 10)  # 80% of 24,576 bytes, rounded up: 19,661
    below = "z" * (amber_from - 2) + "\n"
    at = "z" * (amber_from - 1) + "\n"
    assert utf8_size(at) == amber_from
    assert gauge(below).level == "ok"
    assert gauge(at).level == "amber"
    assert gauge("z" * MEMORY_MAX_BYTES).level == "amber"
    assert gauge("z" * (MEMORY_MAX_BYTES + 1)).level == "red"


def test_gauge_to_dict_has_exactly_the_documented_keys():
    assert gauge(numbered_lines(203)).to_dict() == {
        "lines": 203,
        "bytes": len(numbered_lines(203)),
        "max_lines": 200,
        "max_bytes": 24_576,
        "level": "red",
        "lines_not_loaded": 3,
    }


def test_topic_info_reads_frontmatter_fields():
    info = read_topic_info(
        "travel.md", "---\ntitle: Travel\ndescription: trips and bookings\naliases: [trips, flights]\n---\n# Travel\n"
    )
    assert (info.name, info.title, info.description, info.aliases, info.frontmatter_ok) == (
        "travel.md",
        "Travel",
        "trips and bookings",
        ("trips", "flights"),
        True,
    )
    assert info.size_bytes > 0


def test_topic_without_frontmatter_is_listed_by_name_and_fine():
    info = read_topic_info("clients.md", "# Clients\n- Acme\n")
    assert (info.title, info.description, info.aliases, info.frontmatter_ok) == (None, None, (), True)


def test_a_single_alias_string_is_one_alias():
    assert read_topic_info("food.md", "---\naliases: cooking\n---\n").aliases == ("cooking",)


def test_broken_frontmatter_lists_by_name_only():
    broken = {
        "bad-yaml.md": "---\ntitle: [unclosed\n---\n",
        "a-list.md": "---\n- one\n- two\n---\n",
        "a-scalar.md": "---\njust words\n---\n",
        "title-is-a-list.md": "---\ntitle: [a, b]\n---\n",
        "aliases-are-mappings.md": "---\naliases:\n  - {a: 1}\n---\n",
        "bad-tag.md": "---\ntitle: !!python/object:os.system x\n---\n",
    }
    for name, text in broken.items():
        info = read_topic_info(name, text)
        assert (info.name, info.title, info.description, info.aliases, info.frontmatter_ok) == (
            name,
            None,
            None,
            (),
            False,
        ), name


def test_broken_frontmatter_says_what_is_wrong():
    problems = {
        "---\ntitle: travel\ndescription: trips: abroad\n---\n": "line 3: mapping values are not allowed",
        "---\n- one\n- two\n---\n": "it is not a list of fields (name: value lines)",
        "---\ntitle: [a, b]\n---\n": "title must be plain text, not a list or a mapping",
        "---\naliases:\n  - {a: 1}\n---\n": "each alias must be plain text, not a list or a mapping",
    }
    for text, problem in problems.items():
        assert read_topic_info("t.md", text).frontmatter_problem.startswith(problem), text
    assert read_topic_info("t.md", "---\ntitle: fine\n---\n").frontmatter_problem is None


@given(st.text())
def test_read_topic_info_never_raises(body):
    read_topic_info("any.md", body)
    read_topic_info("any.md", "---\n" + body + "\n---\n")


def test_topic_index_lines_and_order():
    index = topic_index(
        [
            TopicInfo(name="travel.md", title="Travel", description="trips and bookings", aliases=("trips", "flights")),
            TopicInfo(name="clients.md"),
            TopicInfo(name="food.md", aliases=("cooking",)),
            TopicInfo(name="people.md", description="who is who"),
        ]
    )
    assert index.lines == (
        "- memory/clients.md",
        "- memory/food.md (aliases: cooking)",
        "- memory/people.md — who is who",
        "- memory/travel.md — Travel: trips and bookings (aliases: trips, flights)",
    )
    assert (index.listed, index.omitted) == (4, 0)
    assert "more topic" not in index.text
    assert index.text.endswith(index.lines[-1] + "\n")


def test_no_topics_no_index():
    index = topic_index([])
    assert (index.lines, index.listed, index.omitted, index.text) == ((), 0, 0, "")


def test_topic_index_lists_at_most_40_topics():
    index = topic_index([TopicInfo(name=f"topic-{number:02}.md") for number in range(52)])
    assert (index.listed, index.omitted) == (TOPIC_INDEX_MAX_TOPICS, 12)
    assert index.lines[0] == "- memory/topic-00.md"
    assert index.text.endswith("… and 12 more topics not listed.\n")
    assert index.cut_by == INDEX_CUT_BY_TOPICS
    assert [topic.name for topic in index.omitted_topics] == [f"topic-{number}.md" for number in range(40, 52)]
    assert index.more_line == "… and 12 more topics not listed."


def test_topic_index_gives_the_listed_and_omitted_topics_in_index_order():
    topics = [TopicInfo(name=name, description="d" * 150) for name in ("b.md", "C.md", "a.md")]
    topics += [TopicInfo(name=f"z{number:02}.md", description="d" * 150) for number in range(20)]
    index = topic_index(topics)
    assert index.cut_by == INDEX_CUT_BY_CHARACTERS and 0 < index.listed < 23
    assert [topic.name for topic in index.listed_topics][:3] == ["a.md", "b.md", "C.md"]  # as the lines list them
    assert [f"- memory/{topic.name} — {topic.description}" for topic in index.listed_topics] == list(index.lines)
    assert index.listed_topics + index.omitted_topics == tuple(sorted(topics, key=lambda t: t.name.casefold()))
    assert index.text.endswith(index.more_line + "\n")
    every = topic_index(topics[:3])
    assert (every.cut_by, every.omitted_topics, every.more_line) == (None, (), "")


def test_topic_index_stays_within_2000_characters_including_the_more_line():
    topics = [TopicInfo(name=f"topic-{number:02}.md", description="d" * 120) for number in range(30)]
    index = topic_index(topics)
    assert len(index.text) <= TOPIC_INDEX_MAX_CHARS
    assert 0 < index.listed < 30
    assert index.omitted == 30 - index.listed
    assert index.text.endswith(f"… and {index.omitted} more topics not listed.\n")
    one_more = topic_index(topics[: index.listed + 1])
    # with one topic fewer left out the text would have been over the cap (or it all fits)
    assert one_more.listed == index.listed or one_more.omitted == 0


def test_one_topic_left_out_is_singular():
    topics = [TopicInfo(name=f"t{number:02}.md") for number in range(41)]
    assert topic_index(topics).text.endswith("… and 1 more topic not listed.\n")


def test_a_long_description_is_shortened_on_its_line():
    index = topic_index([TopicInfo(name="long.md", description="word " * 200)])
    assert len(index.lines[0]) <= 200
    assert index.lines[0].endswith("…")


@given(st.lists(st.builds(TopicInfo, name=st.text(min_size=1, max_size=30), description=st.none() | st.text())))
def test_topic_index_caps_hold_for_any_topics(topics):
    index = topic_index(topics)
    assert len(index.text) <= TOPIC_INDEX_MAX_CHARS
    assert index.listed <= TOPIC_INDEX_MAX_TOPICS
    assert index.listed + index.omitted == len(topics)


def test_prompt_block_says_cut_off_only_when_cut():
    whole = prompt_block(numbered_lines(10), [], TODAY)
    assert "cut off" not in whole
    assert whole.startswith("## Memory (MEMORY.md)\n\nline 0\n")
    cut = prompt_block(numbered_lines(205), [], TODAY)
    assert "MEMORY.md was cut off here: 5 more lines did not load." in cut
    assert "line 199\n" in cut and "line 200" not in cut


def test_prompt_block_leaves_expired_out_and_lists_topics_under_the_memory():
    text = "- 2026-09-01 · trip · until 2026-09-05\n- likes tea\r\n"
    block = prompt_block(text, [TopicInfo(name="travel.md", title="Travel")], TODAY)
    assert block == (
        "## Memory (MEMORY.md)\n"
        "\n"
        "- likes tea\n"
        "\n"
        "## Topic files\n"
        "\n"
        "These do not load by themselves; read one with your file tools when you need it.\n"
        "- memory/travel.md — Travel\n"
    )


def test_prompt_block_for_an_empty_memory():
    assert prompt_block("", [], TODAY) == "## Memory (MEMORY.md)\n\n(MEMORY.md has nothing to load.)\n"


def test_nothing_loads_when_the_memory_switch_is_off():
    assert prompt_block_if_enabled(False, "- likes tea\n", [TopicInfo(name="a.md")], TODAY) == ""
    assert prompt_block_if_enabled(True, "- likes tea\n", [], TODAY) == prompt_block("- likes tea\n", [], TODAY)


line_texts = st.one_of(
    st.text(alphabet=st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=40),
    st.sampled_from(["", "x" * 5000, "ž" * 3000, "🐎" * 1500, "- 2026-09-10 · fact\r", "  owned"]),
)


@given(st.lists(line_texts, max_size=400), st.booleans())
def test_load_cut_is_the_longest_prefix_of_whole_lines_within_both_limits(line_list, final_newline):
    text = "\n".join(line_list) + ("\n" if final_newline and line_list else "")
    lines = split_lines(text)
    cut = load_cut(text)
    assert text.startswith(cut.loaded_text)
    assert cut.loaded_text == "".join(lines[: cut.lines_loaded])
    assert cut.lines_loaded <= MEMORY_MAX_LINES
    assert utf8_size(cut.loaded_text) == cut.bytes_loaded <= MEMORY_MAX_BYTES
    assert cut.lines_loaded + cut.lines_not_loaded == cut.lines_total == len(lines)
    if cut.lines_loaded < len(lines):
        next_line = lines[cut.lines_loaded]
        assert cut.lines_loaded + 1 > MEMORY_MAX_LINES or cut.bytes_loaded + utf8_size(next_line) > MEMORY_MAX_BYTES
    assert (gauge(text).level == "red") == cut.cut_off
    assert (cut.cut_by is None) == (not cut.cut_off)
    marked = load_cut(text, TODAY)
    assert "".join(line.text for line in marked.lines) == text
    assert [line.state == LINE_PAST_CUT for line in marked.lines] == [n >= cut.lines_loaded for n in range(len(lines))]
