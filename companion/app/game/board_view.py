"""The drawn central board and the seats' boards of the game screen (Flet controls).

Draws the records of ``companion.app.game.board_vm`` with composed controls (no images): the
six locations with this round's dice, the five expedition tracks, the publication grid, the
reputation and round tracks, the two displays as tiles in their continent's colour, and one
small board per seat. Every tile, space and die is a ``Semantics`` node named by its ``info``
line (what it is, in the player's language); tapping it shows that line in a snack bar.
Decisions: docs/app-game.md, "The board and the seats".
"""

from __future__ import annotations

from typing import Callable

import flet as ft

from companion.app.game import board_vm as bv

DIE_BG = {"red": "#C62828", "yellow": "#F9A825", "purple": "#6A1B9A", "blue": "#1565C0", "green": "#2E7D32",
          "unknown": "#757575"}
DIE_FG = {"yellow": "#000000"}
#: tiles: a lighter shade of the continent's die colour, dark text (readable in both themes)
TILE_BG = {"red": "#EF9A9A", "yellow": "#FFE082", "purple": "#CE93D8", "blue": "#90CAF9", "green": "#A5D6A7",
           "unknown": "#BDBDBD"}
TILE_FG = "#1A1A1A"
STAT_ICON = {"coins": ft.Icons.MONETIZATION_ON, "tokens": ft.Icons.EXPLORE, "seals": ft.Icons.VERIFIED,
             "vp": ft.Icons.EMOJI_EVENTS, "rep": ft.Icons.TRENDING_UP}
GAIN_ICON = {"coins": ft.Icons.MONETIZATION_ON, "tokens": ft.Icons.EXPLORE, "seals": ft.Icons.VERIFIED,
             "vp": ft.Icons.EMOJI_EVENTS, "reputation": ft.Icons.TRENDING_UP, "expert": ft.Icons.SCHOOL,
             "animal": ft.Icons.PETS}
LOC_ICON = {"embassy": ft.Icons.ACCOUNT_BALANCE, "bank": ft.Icons.SAVINGS, "university": ft.Icons.SCHOOL,
            "academy": ft.Icons.PETS, "expedition": ft.Icons.EXPLORE, "publish": ft.Icons.MENU_BOOK}
EXPERT_STATE_ICON = {"face_up": ft.Icons.PERSON, "covered": ft.Icons.LAYERS, "flipped": ft.Icons.FLIP,
                     "held": ft.Icons.PERSON}

Show = Callable[[str], None]


def tappable(content: ft.Control, info: str, show: Show, **box) -> ft.Control:
    """``content`` in a box whose tap shows ``info``; ``info`` is also its accessible name."""
    return ft.Semantics(content=ft.Container(content, on_click=lambda e: show(info), **box),
                        label=info, button=True, container=True)


def mini_die(d: bv.DieMark, show: Show, size: int = 22) -> ft.Control:
    return tappable(ft.Text(str(d.value), size=size * 0.55, weight=ft.FontWeight.BOLD, color=DIE_FG.get(d.colour, "#FFFFFF")),
                    d.info, show, width=size, height=size, bgcolor=DIE_BG.get(d.colour, DIE_BG["unknown"]),
                    border_radius=5, alignment=ft.Alignment.CENTER)


def cube(colour: str, size: int = 14, text: str = "") -> ft.Control:
    """A seat's cube (its marker colour) with a count."""
    return ft.Container(ft.Text(text, size=size * 0.75, color="#FFFFFF", weight=ft.FontWeight.BOLD,
                                text_align=ft.TextAlign.CENTER),
                        width=size + 6 * max(0, len(text) - 1), height=size, bgcolor=colour, border_radius=2)


def title(text: str, size: int = 14) -> ft.Text:
    return ft.Text(text, size=size, weight=ft.FontWeight.BOLD)


def tile(t: bv.Tile, show: Show, width: int = 98, height: int = 46, extra: ft.Control | None = None) -> ft.Control:
    """A card of a display or of a seat in its continent's colour (an empty slot: outlined)."""
    if t.empty:
        return tappable(ft.Text(str(t.slot + 1), size=11, color=ft.Colors.ON_SURFACE_VARIANT), t.info, show,
                        width=width, height=height, border_radius=6, alignment=ft.Alignment.CENTER,
                        border=ft.Border.all(1, ft.Colors.OUTLINE_VARIANT))
    body: list[ft.Control] = [ft.Text(t.text, size=11, color=TILE_FG, max_lines=2, overflow=ft.TextOverflow.ELLIPSIS,
                                      weight=ft.FontWeight.W_500)]
    if extra is not None:
        body.append(extra)
    return tappable(ft.Column(body, spacing=2, tight=True), t.info, show, width=width,
                    height=height if extra is None else None, padding=ft.Padding.symmetric(horizontal=5, vertical=3),
                    border_radius=6, bgcolor=TILE_BG.get(t.colour, TILE_BG["unknown"]),
                    border=ft.Border.all(2, DIE_BG.get(t.colour, DIE_BG["unknown"])))


def panel(controls: list[ft.Control], highlight: bool = False) -> ft.Control:
    return ft.Container(ft.Column(controls, spacing=6), padding=10, border_radius=8,
                        border=ft.Border.all(2 if highlight else 1, ft.Colors.PRIMARY if highlight else ft.Colors.OUTLINE_VARIANT))


class Parts:
    """Controls kept while what they draw is equal (the ``board_vm`` records are frozen
    dataclasses): a redraw after a step re-sends only the parts of the board that changed.
    ``holder(name)`` is a panel kept for good, whose children are swapped in place."""

    def __init__(self):
        self._kept: dict[str, tuple[object, ft.Control]] = {}
        self._holders: dict[str, ft.Container] = {}

    def get(self, name: str, record, build: Callable[[], ft.Control]) -> ft.Control:
        old = self._kept.get(name)
        if old is not None and old[0] == record:
            return old[1]
        control = build()
        # a part never changes once drawn (a new record gets a new control): marked isolated,
        # Flet's diff of a page update skips its insides instead of walking every tile, space
        # and die of the board at each step (its own events update nothing inside it: a tap
        # shows a snack bar, which updates itself)
        control._isolated = True
        self._kept[name] = (record, control)
        return control

    def title(self, name: str, text: str, size: int) -> ft.Control:
        """A heading of the panel, kept while its text is the same."""
        return self.get(f"title:{name}", (text, size), lambda: title(text, size))

    def row(self, name: str, controls: list[ft.Control], **kw) -> ft.Row:
        """A row kept for good whose children are swapped in place (only the changed ones are
        new controls)."""
        r = self._holders.get(name)
        if r is None:
            r = self._holders[name] = ft.Row(controls, **kw)
        r.controls = controls
        return r

    def holder(self, name: str, controls: list[ft.Control], highlight: bool = False) -> ft.Control:
        box = self._holders.get(name)
        if box is None:
            box = self._holders[name] = panel([])
        box.content.controls = controls
        box.border = ft.Border.all(2 if highlight else 1, ft.Colors.PRIMARY if highlight else ft.Colors.OUTLINE_VARIANT)
        return box


# --------------------------------------------------------------------------- central board


#: a location box narrower than this (a phone: three to a row) puts its icon beside its dice, so
#: its name has the box's whole width ("Pubblicazione" was cut to "Pubblicazio…" at 390 px)
NARROW_LOCATION = 120


def location_box(loc: bv.LocationView, show: Show, width: int) -> ft.Control:
    icon = ft.Icon(LOC_ICON[loc.key], size=16)
    dice = [mini_die(d, show) for d in loc.dice]
    if width < NARROW_LOCATION:
        rows: list[ft.Control] = [ft.Text(loc.name, size=12, weight=ft.FontWeight.BOLD, width=width - 2 * 6,
                                          overflow=ft.TextOverflow.ELLIPSIS),
                                  ft.Row([icon, *dice], wrap=True, spacing=3, run_spacing=3)]
    else:
        head = ft.Row([icon, ft.Text(loc.name, size=12, weight=ft.FontWeight.BOLD, expand=True,
                                     overflow=ft.TextOverflow.ELLIPSIS)], spacing=4)
        rows = [head, ft.Row(dice, wrap=True, spacing=3, run_spacing=3)]
    if loc.note:
        rows.append(ft.Icon(ft.Icons.FLAG, size=14))
    return ft.Semantics(content=ft.Container(ft.Column(rows, spacing=4), width=width, padding=6, border_radius=6,
                                             border=ft.Border.all(1, ft.Colors.OUTLINE), on_click=lambda e: show(loc.info)),
                        label=loc.info, container=True)


def track_row(tr: bv.TrackView, show: Show, space_w: int) -> ft.Control:
    cells = []
    for sp in tr.spaces:
        inner: ft.Control
        if sp.die is not None:
            inner = mini_die(sp.die, show, 22)
        elif sp.used:
            inner = ft.Icon(ft.Icons.CLOSE, size=16)
        else:
            inner = ft.Container(width=22, height=22)
        top = ft.Row([ft.Text(sp.text, size=11, weight=ft.FontWeight.BOLD, color=TILE_FG),
                      ft.Icon(ft.Icons.TRENDING_UP, size=11, color=TILE_FG), ft.Text(str(sp.rep), size=11, color=TILE_FG)],
                     spacing=1, tight=True, alignment=ft.MainAxisAlignment.CENTER)
        cells.append(tappable(ft.Column([top, inner], spacing=1, horizontal_alignment=ft.CrossAxisAlignment.CENTER, tight=True),
                              sp.info, show, width=space_w, padding=3, border_radius=5,
                              bgcolor=TILE_BG[tr.colour], border=ft.Border.all(1, DIE_BG[tr.colour])))
    name = ft.Semantics(content=ft.Container(ft.Text(tr.name, size=11, weight=ft.FontWeight.BOLD, overflow=ft.TextOverflow.ELLIPSIS),
                                             width=62, on_click=lambda e: show(tr.info)), label=tr.info, container=True)
    return ft.Row([name, *cells], spacing=3)


def pub_grid(rows: tuple[bv.PubRow, ...], seat_colours: list[str], show: Show, cell_w: int) -> ft.Control:
    out = []
    for r in rows:
        cells = []
        for c in r.cells:
            marks = [cube(seat_colours[x.seat], 14, str(x.n)) for x in c.cubes]
            cells.append(tappable(ft.Column([ft.Text(c.name, size=11, overflow=ft.TextOverflow.ELLIPSIS, max_lines=1),
                                             ft.Row(marks, spacing=2, wrap=True, run_spacing=2) if marks else ft.Container(height=14)],
                                            spacing=2, tight=True),
                                  c.info, show, width=cell_w, padding=4, border_radius=5,
                                  border=ft.Border.all(1, ft.Colors.OUTLINE_VARIANT)))
        out.append(ft.Row([ft.Container(ft.Text(r.text, size=11, weight=ft.FontWeight.BOLD), width=52), *cells], spacing=3))
    return ft.Column(out, spacing=3)


def rep_track(spaces: tuple[bv.RepSpace, ...], seat_colours: list[str], show: Show) -> ft.Control:
    cells = []
    for sp in spaces:
        icons = [ft.Icon(GAIN_ICON.get(k, ft.Icons.STAR), size=12) for k, _ in sp.bonus]
        markers = [ft.Container(width=9, height=9, border_radius=5, bgcolor=seat_colours[s],
                                border=ft.Border.all(1, "#000000")) for s in sp.seats]
        cells.append(tappable(ft.Column([ft.Row([ft.Text(str(sp.index), size=11, weight=ft.FontWeight.BOLD), *icons],
                                                spacing=1, tight=True),
                                         ft.Row(markers, spacing=1, tight=True) if markers else ft.Container(height=9)],
                                        spacing=1, tight=True, horizontal_alignment=ft.CrossAxisAlignment.CENTER),
                              sp.info, show, width=38, height=36, padding=2, border_radius=5,
                              bgcolor=ft.Colors.SECONDARY_CONTAINER if sp.bonus else None,
                              border=ft.Border.all(1, ft.Colors.OUTLINE_VARIANT)))
    return ft.Row(cells, wrap=True, spacing=3, run_spacing=3)


def round_track(rounds: tuple[bv.RoundView, ...], show: Show) -> ft.Control:
    cells = []
    for r in rounds:
        icon = ft.Icon(getattr(ft.Icons, bv.TOKEN_ICON.get(r.token, "HELP_OUTLINE")), size=16) if r.token else \
            ft.Text("?", size=12, color=ft.Colors.ON_SURFACE_VARIANT)
        cells.append(tappable(ft.Column([ft.Text(str(r.round), size=11, weight=ft.FontWeight.BOLD), icon], spacing=1, tight=True,
                                        horizontal_alignment=ft.CrossAxisAlignment.CENTER),
                              r.info, show, width=44, height=44, padding=2, border_radius=22, alignment=ft.Alignment.CENTER,
                              border=ft.Border.all(3 if r.current else 1, ft.Colors.PRIMARY if r.current else ft.Colors.OUTLINE_VARIANT)))
    return ft.Row(cells, wrap=True, spacing=4, run_spacing=4)


def central_board_view(b: bv.CentralBoard, gt, show: Show, width: int, parts: Parts | None = None) -> ft.Control:
    """The central board in ``width`` px (about 340 on a phone, 430 beside the turn panel)."""
    parts = parts or Parts()
    colours = [c for _, c in b.seats]
    inner = width - 22
    loc_w = max(96, (inner - 2 * 6) // 3)
    space_w = max(52, (inner - 16 - 62 - 4 * 3) // 4)
    cell_w = max(78, (inner - 52 - 3 * 3) // 3)

    def legend():
        return ft.Row([ft.Row([ft.Container(width=10, height=10, border_radius=5, bgcolor=c), ft.Text(n, size=11)],
                              spacing=3, tight=True) for n, c in b.seats], wrap=True, spacing=10)

    def tracks():
        exp = b.expedition
        head = ft.Semantics(content=ft.Container(ft.Row([ft.Icon(LOC_ICON["expedition"], size=16),
                                                          ft.Text(exp.name, size=12, weight=ft.FontWeight.BOLD)], spacing=4),
                                                  on_click=lambda e: show(exp.info)), label=exp.info, container=True)
        rows = [parts.get(f"track:{t.continent}", t, lambda t=t: track_row(t, show, space_w)) for t in b.tracks]
        return ft.Container(ft.Column([head, *rows], spacing=3), padding=6, border_radius=6,
                            border=ft.Border.all(1, ft.Colors.OUTLINE))

    return parts.holder("central", [
        parts.title("g.bd.title", gt("g.bd.title"), 16), parts.get("legend", b.seats, legend),
        parts.get("hint", gt("g.bd.tap_hint"),
                  lambda: ft.Text(gt("g.bd.tap_hint"), size=11, color=ft.Colors.ON_SURFACE_VARIANT)),
        parts.row("locations", [parts.get(f"loc:{x.key}", x, lambda x=x: location_box(x, show, loc_w)) for x in b.locations],
                  wrap=True, spacing=6, run_spacing=6),
        parts.get("tracks", (b.expedition, b.tracks), tracks),
        parts.title("g.bd.publication", gt("g.bd.publication"), 13),
        parts.get("publication", (b.publication, b.seats), lambda: pub_grid(b.publication, colours, show, cell_w)),
        parts.title("g.bd.reputation", gt("g.bd.reputation"), 13),
        parts.get("reputation", (b.reputation, b.seats), lambda: rep_track(b.reputation, colours, show)),
        parts.title("g.bd.rounds", gt("g.bd.rounds"), 13), parts.get("rounds", b.rounds, lambda: round_track(b.rounds, show)),
        parts.title("g.bd.experts", gt("g.bd.experts"), 13),
        parts.get("experts", b.experts, lambda: ft.Row([tile(t, show) for t in b.experts], wrap=True, spacing=4, run_spacing=4)),
        parts.title("g.bd.animals", gt("g.bd.animals"), 13),
        parts.get("animals", b.animals, lambda: ft.Row([tile(t, show) for t in b.animals], wrap=True, spacing=4, run_spacing=4)),
    ])


# --------------------------------------------------------------------------- seats


def seat_board_view(sb: bv.SeatBoard, gt, show: Show, width: int, parts: Parts | None = None) -> ft.Control:
    parts = parts or Parts()
    inner = width - 22

    def head():
        row = [ft.Container(width=12, height=12, border_radius=6, bgcolor=sb.colour),
               ft.Text(sb.title, weight=ft.FontWeight.BOLD, color=ft.Colors.PRIMARY if sb.active else None, expand=True)]
        if sb.hand is not None:
            row.append(mini_die(sb.hand, show, 24))
        return ft.Row(row, spacing=6)

    def stats():
        return ft.Semantics(content=ft.Row(
            [ft.Row([ft.Icon(STAT_ICON[s.key], size=16), ft.Text(str(s.value), size=14, weight=ft.FontWeight.BOLD)],
                    spacing=2, tight=True) for s in sb.stats], wrap=True, spacing=12), label=sb.stats_info, container=True)

    slot_w = max(70, (inner - 3 * 4) // 4)

    def slots():
        boxes = []
        for sl in sb.slots:
            boxes.append(tappable(ft.Column([ft.Text(sl.effect, size=10, max_lines=2, overflow=ft.TextOverflow.ELLIPSIS,  # FR/IT: 2 lines at 390 px
                                                     color=ft.Colors.ON_SURFACE_VARIANT),
                                             ft.Row([mini_die(d, show, 24) for d in sl.dice] or [ft.Container(height=24)], spacing=2)],
                                            spacing=2, tight=True, horizontal_alignment=ft.CrossAxisAlignment.CENTER),
                                  sl.info, show, width=slot_w, padding=4, border_radius=6, border=ft.Border.all(1, ft.Colors.OUTLINE)))
        return ft.Row(boxes, spacing=4)

    out: list[ft.Control] = [parts.get("head", (sb.title, sb.colour, sb.active, sb.hand), head),
                             parts.get("stats", (sb.stats, sb.stats_info), stats), parts.get("slots", sb.slots, slots)]

    def study():
        tiles = []
        for st in sb.study:
            cells = None if not st.cubes else ft.Row([tappable(ft.Text(bv.TYPE_ROMAN[c.type], size=9, color="#FFFFFF" if c.on else TILE_FG,
                                             weight=ft.FontWeight.BOLD), c.info, show, width=20, height=16, border_radius=3,
                                     alignment=ft.Alignment.CENTER, bgcolor=sb.colour if c.on else None,
                                     border=ft.Border.all(1, TILE_FG))
                            for c in st.cubes], spacing=2, tight=True)
            tiles.append(tile(st.tile, show, width=100, extra=cells))
        return ft.Row(tiles, wrap=True, spacing=4, run_spacing=4)

    if sb.study:
        out += [parts.title("g.sb.study", gt("g.sb.study"), 12), parts.get("study", (sb.study, sb.colour), study)]
    col_w = max(56, (inner - 4 * 3) // max(5, len(sb.columns)))

    def columns():
        return ft.Row([column(c) for c in sb.columns], wrap=True, spacing=3, run_spacing=3)

    def column(c):
        marks = [ft.Icon(EXPERT_STATE_ICON[m.state], size=14, color=TILE_FG if m.state != "flipped" else "#757575")
                 for m in c.experts]
        return tappable(ft.Column([ft.Text(c.name, size=10, weight=ft.FontWeight.BOLD, color=TILE_FG, max_lines=1,
                                                overflow=ft.TextOverflow.ELLIPSIS),
                                        ft.Row([ft.Icon(ft.Icons.MENU_BOOK, size=13, color=TILE_FG),
                                                ft.Text(str(c.published), size=12, weight=ft.FontWeight.BOLD, color=TILE_FG)],
                                               spacing=2, tight=True),
                                        ft.Row(marks, spacing=0, wrap=True) if marks else ft.Container(height=14)],
                                       spacing=1, tight=True),
                        c.info, show, width=col_w, padding=4, border_radius=6, bgcolor=TILE_BG.get(c.colour, TILE_BG["unknown"]))

    out += [parts.title("g.sb.collection", gt("g.sb.collection"), 12), parts.get("columns", sb.columns, columns)]
    return parts.holder("seat", out, highlight=sb.active)


def boards_panel(screen, step) -> tuple[ft.Control, list[ft.Control]]:
    """The central board and every seat's board, for ``GameScreen`` (its view-model and size).

    The panels and every part of them are kept for the open game, language and widths
    (``Parts``): after a step only the parts whose data changed are new controls, so Flet sends
    only those; a tap that only previews does not redraw the boards at all (``GameScreen.redraw``)."""
    vm, gt = screen.vm, screen.gt
    st = vm.state
    central_w, seat_w = board_widths(screen)
    kept = screen.ctl.screen_state("game:board", dict)
    key = (id(vm), gt.lang, central_w, seat_w)
    if kept.get("key") != key:
        kept.clear()
        kept.update(key=key, central=Parts(), seats={})
    placements = screen.ctl.screen_state("game:placements", bv.PlacementCache).get(vm.session.actions)
    shell = screen.shell

    def show(info: str) -> None:
        toast = getattr(shell, "toast", None)
        if toast is not None and getattr(shell, "page", None) is not None:
            toast(info)

    seats = [seat_board_view(sb, gt, show, seat_w, kept["seats"].setdefault(sb.seat, Parts()))
             for sb in bv.seat_boards(st, gt, step.seat)]
    return central_board_view(bv.central_board(st, placements, gt), gt, show, central_w, kept["central"]), seats


def board_widths(screen) -> tuple[int, int]:
    """The widths the central board and the seats' boards get: the phone's content width; on
    wider screens the central board is the side column (5/12 of the content, capped at 1100 px)
    and the seats are under the step (7/12)."""
    from companion.app.common import layout

    w = screen.ctl.width or 412
    if screen.phone:
        return (int(max(320, w - 24)),) * 2
    cw = min(layout.content_width(w) or w - 40, layout.MAX_CONTENT_WIDTH) - 40
    if cw < 768:  # the ResponsiveRow stacks its columns below its "md" breakpoint
        return (int(max(320, cw)),) * 2
    return int(max(320, cw * 5 / 12 - 16)), int(max(320, cw * 7 / 12 - 16))
