"""Awkward inputs for the loader: a clear ImageLoadError or a usable image, never a crash."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.config import ImageLimits
from vision.io import (
    ImageLoadError,
    apply_orientation,
    image_header_info,
    jpeg_exif_orientation,
    load_image,
    normalize_to_bgr8,
)


def jpeg(img: np.ndarray, quality: int = 92) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return buf.tobytes()


def png(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img)
    assert ok
    return buf.tobytes()


def with_exif_orientation(data: bytes, orientation: int, endian: str = "<") -> bytes:
    """Insert a minimal EXIF APP1 segment carrying only the Orientation tag."""
    mark = b"II" if endian == "<" else b"MM"
    tiff = mark + struct.pack(endian + "HI", 42, 8) + struct.pack(endian + "H", 1)
    tiff += struct.pack(endian + "HHI", 0x0112, 3, 1) + struct.pack(endian + "HH", orientation, 0)
    tiff += struct.pack(endian + "I", 0)
    payload = b"Exif\x00\x00" + tiff
    return data[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + data[2:]


def marked(h: int = 30, w: int = 50) -> np.ndarray:
    """A landscape image with a red block in the top-left corner."""
    img = np.full((h, w, 3), 200, np.uint8)
    img[:10, :10] = (0, 0, 255)
    return img


def test_empty_file(tmp_path: Path) -> None:
    p = tmp_path / "empty.jpg"
    p.write_bytes(b"")
    with pytest.raises(ImageLoadError) as e:
        load_image(p)
    assert e.value.reason == "empty file"


def test_text_file(tmp_path: Path) -> None:
    p = tmp_path / "notes.jpg"
    p.write_text("these are not the dice you are looking for\n" * 20)
    with pytest.raises(ImageLoadError, match="not an image"):
        load_image(p)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ImageLoadError, match="file not found"):
        load_image(tmp_path / "missing.png")
    with pytest.raises(ImageLoadError, match="directory"):
        load_image(tmp_path)


def test_error_carries_source_and_reason(tmp_path: Path) -> None:
    with pytest.raises(ImageLoadError) as e:
        load_image(tmp_path / "x.png")
    assert e.value.source == str(tmp_path / "x.png")
    assert str(e.value).endswith("file not found")


def test_one_by_one_pixel(tmp_path: Path) -> None:
    p = tmp_path / "dot.png"
    p.write_bytes(png(np.full((1, 1, 3), 77, np.uint8)))
    loaded = load_image(p)
    assert loaded.image.shape == (1, 1, 3)
    assert loaded.original_size == (1, 1)


def test_huge_jpeg_is_downscaled_early(tmp_path: Path) -> None:
    big = np.full((10000, 10000, 3), (40, 120, 30), np.uint8)
    big[:2000, :2000] = (0, 0, 255)
    p = tmp_path / "huge.jpg"
    p.write_bytes(jpeg(big, 70))
    del big
    limits = ImageLimits()
    loaded = load_image(p, limits)
    # decoded at 1/4 scale by libjpeg: 2500 px, within [work_max_side / 2, work_max_side]
    assert limits.work_max_side / 2 <= max(loaded.image.shape[:2]) <= limits.work_max_side
    assert loaded.original_size == (10000, 10000)
    # boxes map back to original pixels exactly
    s = loaded.image.shape[1] / 10000
    assert loaded.box_to_original((0, 0, 2000 * s, 2000 * s)) == (0, 0, 2000, 2000)
    assert [int(v) for v in loaded.image[10, 10]] == pytest.approx([0, 0, 255], abs=12)


def test_too_many_pixels_for_a_png_is_refused_from_the_header() -> None:
    # a PNG header declaring 50000 x 50000 (no pixel data needed: refused before decoding)
    header = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 50000, 50000)
    header += bytes([8, 2, 0, 0, 0]) + b"\x00\x00\x00\x00"
    assert image_header_info(header) == ("png", 50000, 50000)
    with pytest.raises(ImageLoadError, match="too large"):
        load_image(header)


def test_file_size_limit(tmp_path: Path) -> None:
    p = tmp_path / "big.png"
    p.write_bytes(png(np.zeros((64, 64, 3), np.uint8)) + b"\x00" * 5000)
    with pytest.raises(ImageLoadError, match="file too large"):
        load_image(p, ImageLimits(max_file_bytes=1000))


def test_grey_image(tmp_path: Path) -> None:
    p = tmp_path / "grey.png"
    p.write_bytes(png(np.full((40, 60), 90, np.uint8)))
    loaded = load_image(p)
    assert loaded.image.shape == (40, 60, 3) and loaded.image.dtype == np.uint8
    assert np.all(loaded.image == 90)


def test_four_channel_png_is_composited_over_white(tmp_path: Path) -> None:
    img = np.zeros((20, 20, 4), np.uint8)
    img[:, :10] = (255, 0, 0, 255)  # opaque blue half
    img[:, 10:] = (0, 0, 0, 0)  # fully transparent half
    p = tmp_path / "rgba.png"
    p.write_bytes(png(img))
    out = load_image(p).image
    assert out.shape == (20, 20, 3)
    assert tuple(out[5, 2]) == (255, 0, 0)
    assert tuple(out[5, 15]) == (255, 255, 255)


def test_sixteen_bit_image(tmp_path: Path) -> None:
    img = np.full((16, 16, 3), 65535, np.uint16)
    img[:, :8] = 256 * 100
    p = tmp_path / "deep.png"
    p.write_bytes(png(img))
    out = load_image(p).image
    assert out.dtype == np.uint8
    assert tuple(out[0, 0]) == (100, 100, 100) and tuple(out[0, 15]) == (255, 255, 255)


def test_arrays_of_many_kinds() -> None:
    assert normalize_to_bgr8(np.ones((4, 5), np.float32)).max() == 255
    assert normalize_to_bgr8(np.zeros((4, 5, 1), np.uint8)).shape == (4, 5, 3)
    assert normalize_to_bgr8(np.zeros((4, 5, 2), np.uint8)).shape == (4, 5, 3)
    assert normalize_to_bgr8(np.full((3, 3), np.nan, np.float64)).shape == (3, 3, 3)
    with pytest.raises(ImageLoadError):
        load_image(np.zeros((0, 5, 3), np.uint8))
    with pytest.raises(ImageLoadError, match="shape"):
        load_image(np.zeros((4, 5, 7), np.uint8))
    with pytest.raises(TypeError):
        load_image(12345)  # type: ignore[arg-type]


def test_truncated_jpeg_decodes_what_is_there(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    img = cv2.GaussianBlur(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8), (9, 9), 3)
    data = jpeg(img)
    p = tmp_path / "cut.jpg"
    p.write_bytes(data[: len(data) // 2])
    loaded = load_image(p)
    assert loaded.image.shape == (240, 320, 3)
    assert any("truncated" in w for w in loaded.warnings)
    # the top rows are real picture, not the decoder's grey fill
    assert np.abs(loaded.image[:20].astype(int) - img[:20]).mean() < 10


def test_jpeg_cut_inside_the_header_is_an_error(tmp_path: Path) -> None:
    data = jpeg(marked())
    p = tmp_path / "stub.jpg"
    p.write_bytes(data[:40])
    with pytest.raises(ImageLoadError, match="JPEG"):
        load_image(p)


def test_truncated_png_is_a_clear_error(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    data = png(rng.integers(0, 255, (100, 100, 3), dtype=np.uint8))
    p = tmp_path / "cut.png"
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(ImageLoadError, match="truncated or corrupt PNG"):
        load_image(p)


@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("endian", ["<", ">"])
def test_exif_orientation_matches_opencv_imread(tmp_path: Path, orientation: int, endian: str) -> None:
    data = with_exif_orientation(jpeg(marked(), 95), orientation, endian)
    assert jpeg_exif_orientation(data) == orientation
    p = tmp_path / f"o{orientation}.jpg"
    p.write_bytes(data)
    loaded = load_image(p)
    reference = cv2.imread(str(p))  # OpenCV applies EXIF orientation in imread
    assert loaded.image.shape == reference.shape
    assert np.abs(loaded.image.astype(int) - reference).max() <= 1
    assert loaded.orientation == orientation
    assert loaded.original_size == (reference.shape[1], reference.shape[0])


def test_rotated_phone_photo_is_upright() -> None:
    # a portrait photo stored landscape with orientation 6 ("rotate 90 clockwise to view")
    stored = marked(30, 50)
    data = with_exif_orientation(jpeg(stored, 95), 6)
    loaded = load_image(data)
    assert loaded.image.shape == (50, 30, 3)
    assert loaded.original_size == (30, 50)
    # the red corner, top-left in storage, is top-right when viewed upright
    assert loaded.image[2, 27, 2] > 200 and loaded.image[2, 27, 0] < 60


def test_apply_orientation_inverts_to_identity() -> None:
    img = np.arange(6 * 4 * 3, dtype=np.uint8).reshape(6, 4, 3)
    assert np.array_equal(apply_orientation(img, 1), img)
    assert np.array_equal(apply_orientation(apply_orientation(img, 3), 3), img)
    assert np.array_equal(apply_orientation(apply_orientation(img, 6), 8), img)


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    p = tmp_path / "pipe.jpg"
    os.mkfifo(p)
    with pytest.raises(ImageLoadError, match="not a regular file"):
        load_image(p)


def test_unreadable_file_is_a_clear_error(tmp_path: Path) -> None:
    if os.name != "posix" or os.geteuid() == 0:
        pytest.skip("needs a POSIX non-root user for the permission check")
    p = tmp_path / "secret.png"
    p.write_bytes(png(marked()))
    p.chmod(0)
    with pytest.raises(ImageLoadError, match="permission denied"):
        load_image(p)


def test_header_sizes_of_common_formats() -> None:
    img = marked()
    for ext in (".jpg", ".png", ".bmp", ".webp", ".gif"):
        try:
            ok, buf = cv2.imencode(ext, img)
        except cv2.error:
            continue
        if not ok:
            continue
        fmt, w, h = image_header_info(buf.tobytes())
        assert (w, h) == (50, 30), (ext, fmt)
        assert load_image(buf.tobytes()).image.shape == (30, 50, 3)


def test_heic_photo_gets_an_actionable_error() -> None:
    # the start of an iPhone HEIC file: a box of type 'ftyp' with brand 'heic'
    data = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 200
    with pytest.raises(ImageLoadError, match="HEIC/HEIF photo.*JPEG"):
        load_image(data)


# -- issue 40: nothing is decoded before its size is known; the limits bite ----------------------


def deflate_tiff_bomb(width: int = 20000, height: int = 20000) -> bytes:
    """A valid deflate TIFF of ``width`` x ``height`` grey pixels, a few kB on disk: one strip
    per row, every strip pointing at the same compressed row of zeros."""
    import zlib

    row = zlib.compress(b"\x00" * width, 9)
    n = height
    entries = []  # (tag, type, count, value-or-offset)
    header_len = 8
    # layout: header | IFD | StripOffsets array | StripByteCounts array | the one compressed row
    n_entries = 9
    ifd_len = 2 + 12 * n_entries + 4
    offsets_at = header_len + ifd_len
    counts_at = offsets_at + 4 * n
    row_at = counts_at + 4 * n
    entries = [
        (256, 4, 1, width),        # ImageWidth
        (257, 4, 1, height),       # ImageLength
        (258, 3, 1, 8),            # BitsPerSample
        (259, 3, 1, 8),            # Compression: deflate
        (262, 3, 1, 1),            # Photometric: black is zero
        (273, 4, n, offsets_at),   # StripOffsets
        (277, 3, 1, 1),            # SamplesPerPixel
        (278, 4, 1, 1),            # RowsPerStrip
        (279, 4, n, counts_at),    # StripByteCounts
    ]
    out = bytearray(b"II*\x00" + struct.pack("<I", header_len))
    out += struct.pack("<H", n_entries)
    for tag, typ, count, value in entries:
        if typ == 3 and count == 1:
            out += struct.pack("<HHIHH", tag, typ, count, value, 0)
        else:
            out += struct.pack("<HHII", tag, typ, count, value)
    out += struct.pack("<I", 0)
    out += struct.pack("<I", row_at) * n
    out += struct.pack("<I", len(row)) * n
    out += row
    return bytes(out)


def test_deflate_tiff_bomb_is_refused_without_decoding(tmp_path: Path) -> None:
    import subprocess
    import sys

    bomb = deflate_tiff_bomb()
    assert len(bomb) < 400_000  # small on disk, 400 megapixels inside
    p = tmp_path / "bomb.tif"
    p.write_bytes(bomb)
    # in a fresh process, so its peak memory is the load's own (a decode would need > 400 MB)
    code = (
        "import resource, sys\n"
        "from vision.io import ImageLoadError, load_image\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "print('BASE_MB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
        "try:\n"
        "    load_image(data)\n"
        "    print('LOADED')\n"
        "except ImageLoadError as exc:\n"
        "    print('REFUSED', exc.reason)\n"
        "print('PEAK_MB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
    )
    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(repo))
    out = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True,
                         timeout=120, env=env, cwd=repo)
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
    assert "TIFF images are not accepted" in lines.get("REFUSED", ""), out.stdout
    # the load itself adds nearly nothing (a decode of 400 megapixels adds at least 400 MB)
    assert int(lines["PEAK_MB"]) - int(lines["BASE_MB"]) < 50, out.stdout


def test_formats_without_a_header_size_are_refused_before_decoding() -> None:
    img = marked()
    ok, buf = cv2.imencode(".tiff", img)
    assert ok
    with pytest.raises(ImageLoadError, match="TIFF images are not accepted"):
        load_image(buf.tobytes())
    ok, buf = cv2.imencode(".ppm", img)
    assert ok
    with pytest.raises(ImageLoadError, match="unrecognised file format"):
        load_image(buf.tobytes())
    # a PNG cut before its IHDR: no size, no decode
    with pytest.raises(ImageLoadError, match="no image size"):
        load_image(png(img)[:12])


def test_bytes_size_limit_of_the_phone_upload_path() -> None:
    data = png(marked())
    limits = ImageLimits(max_file_bytes=len(data) - 1)
    with pytest.raises(ImageLoadError, match="image data too large"):
        load_image(data, limits)
    assert load_image(data, ImageLimits(max_file_bytes=len(data))).image.shape == (30, 50, 3)
    assert load_image(bytearray(data), ImageLimits(max_file_bytes=len(data))).format == "png"
    with pytest.raises(ImageLoadError, match="image data too large"):
        load_image(memoryview(data), limits)


def test_jpeg_one_eighth_scale_limit_and_its_boundary() -> None:
    data = jpeg(np.full((800, 800, 3), 90, np.uint8))
    # 800 x 800 / 64 = 10000 pixels at 1/8 scale: exactly the limit is decoded, at 1/8 scale
    loaded = load_image(data, ImageLimits(max_decode_pixels=10_000))
    assert loaded.image.shape == (100, 100, 3)
    assert loaded.original_size == (800, 800)
    with pytest.raises(ImageLoadError, match="even at 1/8 scale"):
        load_image(data, ImageLimits(max_decode_pixels=9_999))


def test_decodes_are_bounded_in_number(monkeypatch) -> None:
    import threading

    import vision.io as vio

    gate = threading.Event()
    running = []
    peak = []
    lock = threading.Lock()
    real = cv2.imdecode

    def slow_imdecode(buf, flags):
        with lock:
            running.append(1)
            peak.append(len(running))
        gate.wait(5)
        try:
            return real(buf, flags)
        finally:
            with lock:
                running.pop()

    monkeypatch.setattr(vio.cv2, "imdecode", slow_imdecode)
    data = png(marked())
    errors = []

    def one():
        try:
            load_image(data)
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    import time

    time.sleep(0.5)
    assert max(peak) == vio.DECODE_SLOTS
    gate.set()
    for t in threads:
        t.join(10)
    assert not errors and max(peak) == vio.DECODE_SLOTS


def test_a_decode_that_waits_too_long_for_a_slot_is_refused(monkeypatch) -> None:
    import threading

    import vision.io as vio

    monkeypatch.setattr(vio, "DECODE_WAIT_S", 0.1)
    sem = threading.BoundedSemaphore(1)
    sem.acquire()
    monkeypatch.setattr(vio, "_DECODE_SEMAPHORE", sem)
    with pytest.raises(ImageLoadError, match="too many images"):
        load_image(png(marked()))
