"""Training augmentation helpers that need no torch (visionlab.train.data)."""
import numpy as np

from visionlab.train.data import mirror_half


def test_mirror_half_mirrors_images_and_their_boxes_together():
    rng = np.random.default_rng(3)
    imgs = np.zeros((40, 12, 20, 3), np.uint8)
    boxes = []
    for k in range(40):
        imgs[k, 2:6, 1:4] = 200 + k % 50        # a bright block at x 1..3, y 2..5
        boxes.append(np.array([[1, 2, 3, 4]], np.float32))
    before = imgs.copy()
    out_imgs, out_boxes = mirror_half(imgs, boxes, rng)
    assert np.array_equal(imgs, before)         # the inputs are not changed
    mirrored = 0
    for k in range(40):
        x, y, w, h = out_boxes[k][0]
        assert (y, w, h) == (2, 3, 4)
        # the box still frames the bright block, wherever it went
        assert (out_imgs[k, 2:6, int(x):int(x + w)] > 0).all()
        assert out_imgs[k].sum() == before[k].sum()
        if x != 1:
            assert x == 20 - 1 - 3
            assert np.array_equal(out_imgs[k], before[k][:, ::-1])
            mirrored += 1
        else:
            assert np.array_equal(out_imgs[k], before[k])
    assert 10 < mirrored < 30                  # about half


def test_mirror_half_keeps_images_without_dice():
    imgs = np.arange(2 * 4 * 6 * 3, dtype=np.uint8).reshape(2, 4, 6, 3)
    out_imgs, out_boxes = mirror_half(imgs, [np.zeros((0, 4), np.float32)] * 2, np.random.default_rng(0))
    assert [b.shape for b in out_boxes] == [(0, 4), (0, 4)]
    for k in range(2):
        assert np.array_equal(out_imgs[k], imgs[k]) or np.array_equal(out_imgs[k], imgs[k][:, ::-1])
