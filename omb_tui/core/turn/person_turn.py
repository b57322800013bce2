"""A turn acting for a person of a Team Cloud home (docs/team-cloud.md).

Spec: memory.md, "Remember and forget, in chat": a preference goes into the About me of the person the turn acts
for (their own chat, a group chat line of theirs, or work handed on from it; nobody's once another person's words
joined); on a shared installation another person's messages never add to the owner's About me.

Who a turn acts for (`acting_for`), on a home with people only (a home without any is the owner's alone, as
before: None, every rule unchanged):

- the person whose message the turn answers, when they are a person of the home and no other person's words are
  in the conversation: their 1:1 chat, or a room where only they have spoken;
- `NOBODY` when that person is one of the home's but another person's words joined: the turn loads no layer,
  saves no preference and writes nothing about a person (only `about: 'work'` reaches the bot's shared memory);
- None when the owner speaks (a name that is no person of the home): the bot's memory and the owner's About me,
  as on any home.

In a turn acting for a person, `memory_update` takes `about`: 'person' (the default) adds to or forgets from their
own layer (and forget reaches their own About me in their own chat), 'work' the bot's shared memory; `prefer`
always goes to their own About me. Recall and `session_search` read their layer beside the bot's notes and only
the conversations they are in.
"""

from __future__ import annotations

import copy

from ..files.paths import Home, MemoryInputError, NotFound, layer_id
from ..memory import conversations as conv
from ..people.layers import require_person
from ..people.people import is_team_cloud, list_people

NOBODY = ""  # a Team Cloud turn of a person whose conversation holds another person's words: acts for no one
ABOUT = ("person", "work")
ABOUT_PARAMETER = {
    "type": "string",
    "enum": list(ABOUT),
    "description": (
        "add and forget only: 'person' (the default) for what is about the person you are talking with (a "
        "preference, a fact they stated about themselves), kept in your notes on them alone; 'work' for what is "
        "about the work, kept in your shared memory"
    ),
}


def acting_for(home: Home, conversation: conv.Conversation, speaker: str) -> str | None:
    """Who the turn acts for (the module's rules): a person's name, NOBODY, or None (the owner, any home)."""
    if not is_team_cloud(home) or speaker not in {p.name for p in list_people(home)}:
        return None
    others = {m.author for m in conversation.messages if m.author_kind == "person" and m.author != speaker}
    return NOBODY if others else speaker


def require_turn_person(home: Home, person: str | None) -> str | None:
    """`chat --person NAME` (and the library's `person=`) on a home with people must name one of them: a name that
    is no one's would put the person's words in the bot's shared memory. None and a home without people: as is."""
    if person is None or not is_team_cloud(home):
        return person
    try:
        return require_person(home, person)
    except (NotFound, MemoryInputError):
        raise NotFound(
            f"{person!r} is no person of this Team Cloud home (`omb-tui people list` names them); nothing was sent."
        ) from None


def memory_update_tool_for(base: dict, person: str | None) -> dict:
    """memory_update's schema as a turn acting for `person` offers it: with `about`; unchanged otherwise."""
    if person is None:
        return base
    tool = copy.deepcopy(base)
    tool["function"]["parameters"]["properties"]["about"] = ABOUT_PARAMETER
    tool["function"]["description"] += (
        f" You are talking with {person}: what is about them goes to your notes on them (about 'person'), what is "
        "about the work to your shared memory (about 'work'); a preference goes to their own About me."
        if person
        else " Several people have spoken here: keep only what is about the work (about 'work')."
    )
    return tool


def update_target(bot_id: str, person: str | None, action: str, about: object) -> str:
    """The workspace a memory_update of a turn acting for `person` writes to: the bot's own, or the person's layer."""
    if person is None:
        return bot_id
    if about is not None and about not in ABOUT:
        raise MemoryInputError("'about' must be 'person' or 'work'.")
    if action != "prefer" and about == "work":
        return bot_id
    if person == NOBODY:
        what = "a preference is no one's here" if action == "prefer" else "use about 'work' for the work"
        raise MemoryInputError(
            f"more than one person has spoken in this conversation, so nothing is kept about one of them: {what}."
        )
    return layer_id(bot_id, person)
