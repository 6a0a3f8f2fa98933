"""The simulator's invariant check catches each kind of broken state (so the property tests that
rely on it can fail)."""

import pytest

from companion.simulate import InvariantError, check_invariants, play_game


@pytest.fixture(scope="module")
def mid():
    """A 3-seat game (one automa) stopped in round 4, with cards, cubes and experts about."""
    rec = play_game(11, 3, 1, check=False)
    from companion.engine import replay

    for n in range(len(rec.actions) * 2 // 3, len(rec.actions)):
        st = replay(rec.actions[:n])
        if st.hand is not None and any(s.cubes for s in st.seats) and any(s.experts for s in st.seats if s.kind == "human"):
            return rec.actions[:n]
    raise AssertionError("no suitable moment")


def _state(actions):
    from companion.engine import replay

    return replay(actions)


def _human(st):
    return next(s for s in st.seats if s.kind == "human" and s.experts and s.cubes)


BREAKS = {
    "a die vanishes": lambda st: st.bag.__setitem__("red", st.bag["red"] - 1),
    "a die appears": lambda st: st.seats[0].slots[0].append(("blue", 3)),
    "a die shows 7": lambda st: st.__setattr__("hand", (st.hand[0], 7)),
    "negative coins": lambda st: setattr(st.seats[1], "coins", -1),
    "negative vp": lambda st: setattr(st.seats[0], "vp", -2),
    "reputation off the track": lambda st: setattr(st.seats[0], "rep", st.board.reputation_track_length),
    "a cube appears": lambda st: _human(st).cubes[next(iter(_human(st).cubes))].append("hot"),
    "cubes on a card not under study": lambda st: _human(st).cubes.__setitem__(10_000, ["bird"]),
    "a card in two places": lambda st: st.discarded_animals.append(_human(st).animals[0]),
    "a card lost": lambda st: _human(st).animals.pop(),
    "an expert lost": lambda st: _human(st).experts.pop(),
    "an expert twice": lambda st: st.discarded_experts.append(_human(st).experts[0]),
    "a face-up expert not owned": lambda st: _human(st).face_up.__setitem__(
        _human(st).face_up.index(None) if None in _human(st).face_up else 0, "Nobody Known"),
}


def test_a_sound_state_passes(mid):
    check_invariants(_state(mid))


@pytest.mark.parametrize("what", sorted(BREAKS))
def test_each_broken_invariant_is_caught(mid, what):
    st = _state(mid)
    BREAKS[what](st)
    with pytest.raises(InvariantError):
        check_invariants(st)
