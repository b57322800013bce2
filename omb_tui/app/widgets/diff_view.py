"""One journal row seen whole: when, who, how, chat, file, whether it can be undone, and its diff in colour.

Spec: memory.md, "The journal" (each row says who, how, which file, when, a short diff; rows that cannot
be undone say why). The diff is the row's short unified diff, already redacted by the core; its colours
are theme variables, so it reads the same in dark and light themes.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...core.journal.journal import HOW_UNDO, DamagedLine, row_action, row_writer
from ...core.journal.when import when_text
from .journal_list import ShownRow
from .row_list import printable

ADDED = "$text-success on $success-muted"
REMOVED = "$text-error on $error-muted"
HUNK = "$text-accent"
MUTED = "$foreground-muted"


def _clean(text: object) -> str:
    """A row's text as drawn here: tabs kept (the diff's own tabs are spaces by then)."""
    return printable(text, keep="\t")


def diff_lines(diff: str, *, changed_only: bool = False) -> list[Content]:
    """The unified diff line by line: added green, removed red, hunks in the accent colour. `changed_only`: the
    added and removed lines alone (a run's detail, where each change's file and time head its lines)."""
    lines = []
    for line in diff.splitlines():
        if changed_only and (line[:1] not in "+-" or line.startswith(("+++", "---"))):
            continue
        line = _clean(line.replace("\t", "    "))
        if line.startswith(("+++", "---")):
            lines.append(Content.styled(line, MUTED))
        elif line.startswith("@@"):
            lines.append(Content.styled(line, HUNK))
        elif line.startswith("+"):
            lines.append(Content.styled(line, ADDED))
        elif line.startswith("-"):
            lines.append(Content.styled(line, REMOVED))
        elif line.startswith(("…", "\\")):
            lines.append(Content.styled(line, f"italic {MUTED}"))
        else:
            lines.append(Content(line))
    return lines


def row_content(row: ShownRow | None) -> Content:
    if row is None:
        return Content.styled("No row selected.", MUTED)
    if isinstance(row, DamagedLine):
        return Content.assemble(
            ("Damaged journal line", "bold $text-error"),
            f"\n{row.size} bytes at byte {row.offset} of the journal cannot be read: {_clean(row.error)}.\n",
            ("It is left as it is; it cannot be undone.", MUTED),
        )
    parts: list[Content | str | tuple[str, str]] = [
        (_clean(row.file), "bold"),
        ("  ", ""),
        (when_text(row.at), MUTED),
        "\n",
    ]
    action = row_action(row)
    said = [_clean(row_writer(row)), _clean(row.how)]
    if row.chat:
        said.append(f'chat "{_clean(row.chat)}"')
    if row.step:
        said.append(f"step {_clean(row.step)}")
    parts += [(_clean(action[:1].upper() + action[1:]), "bold"), " · ", " · ".join(said)]
    if row.note and row.note != action:  # a rename's note is its action, said already
        parts += ["\n", (_clean(row.note), "italic")]
    if row.undo_of:
        parts += ["\n", (f"{'undoes' if row.how == HOW_UNDO else 'undo of'} row {_clean(row.undo_of)}", MUTED)]
    parts.append("\n")
    if row.undoable:
        if row.before_hash is None:
            effect = f"u undoes it: {_clean(row.file)} did not exist before"
        else:
            effect = f"u puts {_clean(row.file)} back as it was before this change"
        parts.append((effect, "$text-success"))
    else:
        reason = _clean(row.not_undoable_reason or "no earlier text was kept")
        parts.append((f"Cannot be undone: {reason}.", "bold $text-warning"))
    parts.append(("\n" + f"row {_clean(row.id)}", MUTED))
    header = Content.assemble(*parts)
    diff = diff_lines(row.diff or "")
    body = Content("\n").join(diff) if diff else Content.styled("(no difference in the text)", MUTED)
    return Content("\n").join([header, Content(""), body])


class DiffView(VerticalScroll):
    """Shows one row; scrolls with the arrow keys when focused."""

    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        & > #diff-text { padding: 0 1; width: 1fr; }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.row: ShownRow | None = None

    def compose(self) -> ComposeResult:
        yield Static(row_content(None), id="diff-text")

    def show(self, row: ShownRow | None) -> None:
        if row is self.row and row is not None:
            return
        self.row = row
        self.query_one("#diff-text", Static).update(row_content(row))
        self.scroll_home(animate=False)

    @property
    def text(self) -> str:
        """What is shown, as plain text (for tests and screen readers)."""
        return row_content(self.row).plain
