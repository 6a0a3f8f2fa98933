"""The table's heatmap beside the shipped one (build H, stop 58; vision.model.union_candidates):
its candidates count only where the shipped heatmap has none that can be kept, and only where they
reach the floor (faint dice stay the shipped detector's)."""
from __future__ import annotations

from vision.model import union_candidates

FLOOR = 0.65 ** 2


def test_a_table_candidate_on_a_die_the_shipped_heatmap_finds_is_dropped():
    shipped = [((10.0, 10.0, 40.0, 40.0), 0.9), ((100.0, 10.0, 40.0, 40.0), 0.3)]   # the second is weak
    table = [((12.0, 8.0, 40.0, 42.0), 0.99),    # on the first die: the shipped box and peak stay
             ((102.0, 12.0, 38.0, 38.0), 0.8),   # on the weak one: added (NMS then keeps the better)
             ((200.0, 50.0, 40.0, 40.0), 0.7)]   # where the shipped heatmap has nothing: added
    got = union_candidates(shipped, table + [((300.0, 50.0, 40.0, 40.0), 0.4)], FLOOR)   # the last: under the floor
    assert got == [((10.0, 10.0, 40.0, 40.0), 0.9, False), ((102.0, 12.0, 38.0, 38.0), 0.8, True),
                   ((200.0, 50.0, 40.0, 40.0), 0.7, True), ((100.0, 10.0, 40.0, 40.0), 0.3, False)]
    # a box that holds a kept shipped box's centre, or one whose IoU with it is 0.3 or more, is dropped
    big = ((0.0, 0.0, 100.0, 100.0), 0.95)
    near = ((31.0, 10.0, 40.0, 40.0), 0.95)      # IoU 0.31 with the first, centre outside it
    alone = [(b, s, False) for b, s in shipped]
    assert union_candidates(shipped, [big, near], FLOOR) == alone
    assert union_candidates([], table, FLOOR) == [(b, s, True) for b, s in table]
    assert union_candidates(shipped, [], FLOOR) == alone
