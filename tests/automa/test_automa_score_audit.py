"""The automa's points, audited from a whole game's log against the printed cards.

Every VP an automa gains during the game must come from a Behavior-card expedition row
(N VP per expedition token discarded: the tokens it held plus those the space's reputation
brought it on the way, since the card reads "gains the reputation, discards all tokens, N VP
per token") or from a human taking its die from the 3 VP slot; nothing else. Its final total
must equal the Scoring card recomputed here from the cards the log gave it (not from the
engine's counts). Written after the old README table had been produced with an automa's
animals missing at game end.
"""

import random
from collections import Counter

import pytest

from companion.actions import AutomaAction, ChooseAnimal, ChooseExpert, DrawAnimal, SeatConfig, TakeDie
from companion.engine import EXPERT, State, apply
from automa.content import Priority
from automa.play import play, scores
from automa.reference import ReferencePlayer

# the printed Behavior cards: die value -> VP per token of the expedition rows (EN p.22-23)
EXPEDITION_ROWS = {
    "carl-von-linne": {4: 4, 1: 3},
    "abraham-trembley": {6: 5},
    "louis-jean-marie-daubenton": {5: 6, 2: 5},
}
# the printed Scoring cards: expert groups, coins per VP, VP per token, VP per seal
SCORING = {
    "la-boudeuse": ((3, 2, 1), 2, 2, 4),
    "hms-resolution": ((4, 3, 2), 2, 3, 5),
    "l-astrolabe": ((5, 4, 3), 1, 4, 6),
}


def audit(actions, automa: int, step=apply):
    """(problems, total recomputed from the log) for the automa at seat ``automa``; ``step``
    applies one action (the engine's checked ``apply``)."""
    st = State()
    problems = []
    track = 0
    animals: Counter = Counter()
    experts: Counter = Counter()
    for k, a in enumerate(actions):
        before = st.seats[automa] if st.seats else None
        vp0, tokens0, rep0 = (before.vp, before.tokens, before.rep) if before else (0, 0, 0)
        hand = st.hand
        used = dict(st.expedition) if st.seats else {}
        step(st, a)
        if k == 0:
            continue
        s = st.seats[automa]
        b = st.board
        want = 0
        if isinstance(a, AutomaAction) and a.seat == automa:
            per = EXPEDITION_ROWS[s.behaviour].get(max(1, min(6, hand[1])))
            if per is not None:
                rep = b.expedition_spaces[used[a.continent]][0] if a.continent else 0
                walk = [(rep0 + i) % b.reputation_track_length for i in range(1, rep + 1)]
                gained = sum(b.reputation_bonuses.get(x, {}).get("tokens", 0) for x in walk)
                want = per * (tokens0 + gained)
                if s.tokens != 0:
                    problems.append(f"action {k}: {s.tokens} token(s) left after an expedition row")
        elif isinstance(a, TakeDie) and a.owner == automa and a.seat != automa:
            want = b.slot_effects[a.slot].get("vp", 0)
        if s.vp - vp0 != want:
            problems.append(f"action {k} ({type(a).__name__}): automa +{s.vp - vp0} VP, the cards say +{want}")
        track += want
        if isinstance(a, ChooseAnimal) and a.seat == automa:
            animals[st.cards[a.card].continent] += 1
        elif isinstance(a, DrawAnimal) and a.seat == automa and not a.sepultus:
            animals[a.continent] += 1
        elif isinstance(a, ChooseExpert) and a.seat == automa:
            experts[EXPERT[a.name].continent] += 1
    s = st.seats[automa]
    groups, coins_per_vp, per_token, per_seal = SCORING[s.scoring]
    total = track
    total += sum((animals[c] + experts[c]) * animals[c] for c in set(animals) | set(experts))
    total += sum(n * g for n, g in zip(sorted(experts.values(), reverse=True), groups))
    total += s.coins // coins_per_vp + s.tokens * per_token + s.seals * per_seal
    return problems, total


@pytest.mark.parametrize("behaviour, scoring, seed", [
    ("carl-von-linne", "la-boudeuse", 0),
    ("abraham-trembley", "hms-resolution", 1),
    ("louis-jean-marie-daubenton", "l-astrolabe", 2),
])
def test_automa_points_match_the_printed_cards(behaviour, scoring, seed):
    pr = Priority.shuffled(random.Random(seed * 7919 + 1))
    seats = [SeatConfig("Reference"), SeatConfig("Automa", "automa", behaviour, scoring, pr.order)]
    res = play(seats, seed=seed, first_player=seed % 2, human_factory=lambda rng, i: ReferencePlayer(rng))
    problems, total = audit(res.actions, 1)
    assert problems == []
    breakdowns, _ = scores(res)
    assert breakdowns[1].total == total
    s = res.state.seats[1]
    assert s.animals and breakdowns[1].vp_of("track") == s.vp  # its animals are still counted at the end


def test_audit_catches_a_token_counted_twice():
    """The audit is not blind: an expedition row that scores one token too many is reported."""
    pr = Priority.shuffled(random.Random(7920))
    seats = [SeatConfig("Reference"), SeatConfig("Automa", "automa", "louis-jean-marie-daubenton", "la-boudeuse", pr.order)]
    res = play(seats, seed=1, human_factory=lambda rng, i: ReferencePlayer(rng))

    def inflated(st, a):
        tokens = st.seats[a.seat].tokens if isinstance(a, AutomaAction) else 0
        apply(st, a)
        if tokens and st.seats[a.seat].tokens == 0:
            st.seats[a.seat].vp += 1  # one VP too many on an expedition row that discarded tokens

    assert audit(res.actions, 1)[0] == []
    problems, _ = audit(res.actions, 1, step=inflated)
    assert problems and "the cards say" in problems[0]
