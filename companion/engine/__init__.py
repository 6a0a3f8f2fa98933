"""The engine: the rules of Encyclopedia as pure functions over a plain game state.

Outside code imports the engine from here (``from companion.engine import apply, State, ...``);
the modules below are its inside. They import one way, each only from those above it in
this list (never back up, not even inside a function):

- ``effects``        ``EXPERT`` (the expert cards by name) and the experts' permanent effects
                     aggregated per seat (``Fx``, ``refresh_effects``);
- ``automa_rows``    the automa's Behavior cards as data and its dice placement;
- ``state``          ``Card``, ``Seat``, ``State`` (canonical JSON, copies) and what a state
                     waits for (``Pending``, ``pending_of``, read as ``state.pending``);
- ``rules``          the shared pieces of the rules: checks and refusals, reputation track
                     walks, deck counts, die values and spends, experts and cards entered;
- ``handlers_setup`` action handlers: set-up, chance inputs, card choices;
- ``handlers_turn``  action handlers: the turn, the six actions, research, automa, seals;
- ``flow``           the door: ``apply`` (checked), ``apply_unchecked``, ``replay``,
                     ``new_game``, and the automatic steps between inputs;
- ``log_lines``      one sentence per action for the game log (``describe``,
                     ``describe_action``);
- ``queries``        read-only legal-option queries for the UI and the automa, scoring inputs;
- ``players``        seeded random legal players and chance, for the simulator and the tests.

Below the engine (it imports them): ``companion.actions`` (its inputs), ``companion.errors`` and
``companion.messages`` (its refusals and log lines as message keys), ``companion.board_values``
(the board constants in the game record), ``companion.content`` and ``companion.scoring``.

What must not live or be imported here: no UI (``companion.app``, flet), no vision, no store
or session (the event log and the session replay games through the engine, never the other
way). The engine writes no file and reads no clock: the same actions give the same state.
"""

from __future__ import annotations

from companion.engine.effects import EXPERT, refresh_effects
from companion.engine.automa_rows import BEHAVIOUR_NAMES, BEHAVIOURS, SCORING_IDS, automa_slot_order, behaviour_row
from companion.engine.state import Card, Pending, Seat, State, pending_of
from companion.engine.rules import animal_deck_left, cube_swaps, cubes_left, expert_deck_left, place_gains
from companion.engine.flow import RULES_CHANGES, RULES_VERSION, apply, refused_only_by_newer_rules, apply_unchecked, new_game, replay
from companion.engine.log_lines import describe, describe_action
from companion.engine.queries import (
    DieSpot, Option, PublicationPreview, automa_card_choice, automa_expedition_continent, automa_row,
    cheapest_recolour, dice_on_boards, die_options, final_scores, max_expedition_value,
    preview_publication, publishable_types, research_options, score_inputs,
)
from companion.engine.players import CHANCE_KINDS, ChanceSource, RandomPlayer, next_action
from companion.errors import RuleError

__all__ = [
    # the door (flow)
    "apply", "apply_unchecked", "replay", "new_game", "RULES_VERSION", "RULES_CHANGES",
    "refused_only_by_newer_rules",
    # the state and what it waits for (state, effects)
    "State", "Card", "Seat", "Pending", "pending_of", "refresh_effects", "EXPERT",
    "animal_deck_left", "expert_deck_left", "place_gains", "cubes_left", "cube_swaps",
    # the log lines (log_lines)
    "describe", "describe_action",
    # the automa's Behavior cards (automa_rows)
    "BEHAVIOURS", "BEHAVIOUR_NAMES", "SCORING_IDS", "behaviour_row", "automa_slot_order",
    # read-only queries (queries)
    "DieSpot", "dice_on_boards", "cheapest_recolour", "max_expedition_value", "publishable_types",
    "Option", "die_options", "research_options", "PublicationPreview", "preview_publication",
    "automa_row", "automa_expedition_continent", "automa_card_choice", "score_inputs", "final_scores",
    # seeded random players and chance (players)
    "ChanceSource", "RandomPlayer", "next_action", "CHANCE_KINDS",
    "RuleError",
]
