"""Rule D (stop 73): a first-pass box over two dice the finer pass tells apart is left out
(``ModelConfig.split_coarse``, ``DiceModel._coarse``)."""
from dataclasses import replace

from vision.model import DiceModel, ModelConfig, _Candidates


class _Resizable:
    input_names = ["image"]
    input_shapes = [(1, 3, None, None)]
    output_names = ["heatmap", "wh", "offset"]

    def run(self, feeds):  # never run here: _select works on given candidates
        raise AssertionError


def _model(**kw):
    return DiceModel(_Resizable(), None, replace(ModelConfig(), **kw))


def _raw(first, fine):
    boxes = [b for b, _ in first] + [b for b, _ in fine]
    scores = [s for _, s in first] + [s for _, s in fine]
    return _Candidates(boxes, scores, [False] * len(boxes), len(first), 2000, 1500)


COARSE = ((100.0, 100.0, 60.0, 70.0), 0.83)        # one first-pass box over two touching dice
LEFT = ((98.0, 120.0, 40.0, 40.0), 0.78)           # the finer pass's box of each die
RIGHT = ((122.0, 98.0, 40.0, 40.0), 0.62)


def test_a_coarse_box_over_two_finer_dice_gives_way_to_them():
    raw = _raw([COARSE], [LEFT, RIGHT])
    model = _model()
    assert model._coarse(raw) == {0}
    assert sorted(model._select(raw)) == [1, 2]
    # as before with the switch off: the coarse box's peak wins and NMS keeps it alone
    assert _model(split_coarse=False)._select(raw) == [0]


def test_one_die_boxed_twice_by_the_finer_pass_does_not_split_it():
    whole = ((100.0, 100.0, 40.0, 40.0), 0.8)
    top = ((104.0, 102.0, 32.0, 30.0), 0.7)       # the top face: inside the whole die's box
    raw = _raw([((96.0, 96.0, 50.0, 50.0), 0.85)], [whole, top])
    assert _model()._coarse(raw) == set()


def test_finer_candidates_under_the_gate_do_not_split():
    gate = ModelConfig().gate
    raw = _raw([COARSE], [LEFT, (RIGHT[0], gate - 0.01)])
    assert _model()._coarse(raw) == set()
    raw = _raw([COARSE], [LEFT, (RIGHT[0], gate)])
    assert _model()._coarse(raw) == {0}


def test_dice_side_by_side_outside_the_box_change_nothing():
    far = ((400.0, 400.0, 40.0, 40.0), 0.9)
    raw = _raw([COARSE], [LEFT, far])
    assert _model()._coarse(raw) == set()
