"""Search every bot from the app (docs/app.md): `/` on the bots screen opens a box that keeps
every typed key as text until Escape; Enter searches each bot by its own rules and each hit names its bot."""

from __future__ import annotations

from datetime import timedelta

from support.app_helpers import add_bot, listed_bots, settle, wait_for
from support.conversations import make_conversation

from omb_tui.core.base import clock


async def test_slash_searches_every_bot_and_typed_letters_stay_text(home):
    from omb_tui.app.app import make_app
    from omb_tui.app.screens.bots import BotsScreen
    from omb_tui.app.screens.search_all import SearchAllScreen

    add_bot(home, "quill", files={"MEMORY.md": "# Memory\n\n- the Lisbon hotel is in Alfama\n"})
    recent = clock.now() - timedelta(hours=1)
    make_conversation(
        home, "trip", "Trip", messages=[("person", "Which hotel did we pick for Lisbon?", recent, "person")]
    )
    app = make_app(home, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await listed_bots(pilot)
        await pilot.press("slash")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SearchAllScreen) and app.focused.id == "search-words"
        await pilot.press(*"vseb lisbon hotel q")  # letters that switch areas elsewhere: here only text
        assert (
            isinstance(app.screen, SearchAllScreen) and screen.query_one("#search-words").value == "vseb lisbon hotel q"
        )
        screen.query_one("#search-words").value = "Lisbon hotel"
        await pilot.press("enter")
        text = lambda: str(screen.query_one("#search-hits-text").render())  # noqa: E731
        await wait_for(pilot, lambda: "scout" in text() and "quill" in text())
        assert "Which hotel did we pick for Lisbon?" in text() and "Alfama" in text()
        assert "hits in 2 of 2 bots" in str(screen.query_one("#search-status").render())
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BotsScreen)
