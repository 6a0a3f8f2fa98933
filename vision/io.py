"""Robust image loading: path, bytes or array in, a BGR uint8 working image out.

* EXIF orientation of phone photos is applied (parsed here from the JPEG's APP1 segment, then
  decoded with ``IMREAD_IGNORE_ORIENTATION`` so the result does not depend on the OpenCV version).
* Grey, grey+alpha, BGRA, 16-bit and float images become BGR uint8 (alpha is composited over
  white, as an image viewer shows it).
* Only the formats whose size this module reads from the header are decoded: JPEG, PNG, BMP,
  GIF and WebP (``ACCEPTED_FORMATS``). Every other input (TIFF, JPEG 2000, OpenEXR, Radiance
  HDR, PNM, Sun raster, AVIF, HEIC, unknown bytes) is refused before any decoder sees it: a phone
  camera never sends them, and a decoder that learns the size only while decoding is how a
  1 MB deflate TIFF of 20000x20000 took 2.4 GB (issue 40). A header whose size cannot be read is
  refused too.
* Huge images are downscaled early: a JPEG is decoded at 1/2, 1/4 or 1/8 scale by libjpeg when
  that still leaves at least half the working size; other formats above
  ``ImageLimits.max_decode_pixels`` are refused from the header. At most ``DECODE_SLOTS`` decodes
  run at once in the process (the others wait up to ``DECODE_WAIT_S`` seconds, then are refused
  as busy), so a burst of uploads cannot multiply the peak memory.
  The working copy's longer side is at most ``ImageLimits.work_max_side``.  ``LoadedImage``
  keeps the scale so boxes map back to original pixels exactly.
* A truncated JPEG is decoded as far as its data goes (the rest is grey) with a warning; other
  truncated or corrupt files, empty files, text files, directories and missing files raise
  :class:`ImageLoadError` with a reason a person understands.
"""

from __future__ import annotations

import os
import stat
import struct
import threading
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.config import DEFAULT_LIMITS, ImageLimits

__all__ = [
    "ImageLoadError",
    "LoadedImage",
    "apply_orientation",
    "image_header_info",
    "jpeg_exif_orientation",
    "load_image",
    "normalize_to_bgr8",
]

ImageSource = str | os.PathLike[str] | bytes | bytearray | memoryview | np.ndarray

#: the formats decoded at all: their size is read from the header before any decoder runs
ACCEPTED_FORMATS = ("jpeg", "png", "bmp", "gif", "webp")

#: how many images may be decoding at once in this process, and how long a decode waits for a slot
DECODE_SLOTS = 2
DECODE_WAIT_S = 30.0
_DECODE_SEMAPHORE = threading.BoundedSemaphore(DECODE_SLOTS)


class ImageLoadError(ValueError):
    """The input cannot be turned into an image. ``reason`` is a short human-readable cause."""

    def __init__(self, reason: str, source: str | None = None) -> None:
        self.reason = reason
        self.source = source
        super().__init__(f"{source}: {reason}" if source else reason)


@dataclass(frozen=True)
class LoadedImage:
    """The working image and how it maps back to the original (EXIF-rotated) image."""

    image: np.ndarray  # BGR uint8, H x W x 3, C-contiguous
    original_size: tuple[int, int]  # (width, height) of the original image after EXIF rotation
    orientation: int = 1  # EXIF orientation that was applied (1 = none)
    format: str = "array"  # "jpeg", "png", ... or "array"
    warnings: tuple[str, ...] = field(default=())

    @property
    def scale_x(self) -> float:
        """Original pixels per working pixel, horizontally (>= 1 when downscaled)."""
        return self.original_size[0] / self.image.shape[1]

    @property
    def scale_y(self) -> float:
        return self.original_size[1] / self.image.shape[0]

    def box_to_original(self, box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
        """(x, y, w, h) in working pixels -> integer (x, y, w, h) in original pixels, clipped."""
        x, y, w, h = (float(v) for v in box)
        ow, oh = self.original_size
        x0 = min(max(x * self.scale_x, 0.0), ow)
        y0 = min(max(y * self.scale_y, 0.0), oh)
        x1 = min(max((x + w) * self.scale_x, 0.0), ow)
        y1 = min(max((y + h) * self.scale_y, 0.0), oh)
        ix0, iy0 = int(round(x0)), int(round(y0))
        return ix0, iy0, max(int(round(x1)) - ix0, 0), max(int(round(y1)) - iy0, 0)


# ------------------------------------------------------------------------------------------
# Header parsing (no decoding)
# ------------------------------------------------------------------------------------------

_SOF_MARKERS = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _sniff(data: bytes) -> str | None:
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:2] == b"BM":
        return "bmp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if data[4:8] == b"ftyp":
        brand = data[8:12]
        if brand in (b"avif", b"avis"):
            return "avif"
        if brand in (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"):
            return "heic"
    return None


def _jpeg_segments(data: bytes):
    """Yield (marker, payload) for the JPEG header segments up to the start of scan."""
    pos = 2
    n = len(data)
    while pos + 4 <= n:
        if data[pos] != 0xFF:
            return
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if length < 2:
            return
        yield marker, data[pos + 4 : pos + 2 + length]
        if marker == 0xDA:  # start of scan: entropy-coded data follows
            return
        pos += 2 + length


def jpeg_exif_orientation(data: bytes) -> int:
    """The EXIF orientation (1..8) of a JPEG, 1 when absent or unreadable."""
    for marker, payload in _jpeg_segments(data):
        if marker == 0xE1 and payload[:6] == b"Exif\x00\x00":
            tiff = payload[6:]
            if len(tiff) < 8:
                return 1
            endian = {b"II": "<", b"MM": ">"}.get(tiff[:2])
            if endian is None:
                return 1
            try:
                (ifd,) = struct.unpack(endian + "I", tiff[4:8])
                (count,) = struct.unpack(endian + "H", tiff[ifd : ifd + 2])
                for i in range(count):
                    entry = tiff[ifd + 2 + 12 * i : ifd + 14 + 12 * i]
                    if len(entry) < 12:
                        break
                    tag, typ = struct.unpack(endian + "HH", entry[:4])
                    if tag == 0x0112 and typ == 3:  # Orientation, SHORT
                        (value,) = struct.unpack(endian + "H", entry[8:10])
                        return value if 1 <= value <= 8 else 1
            except struct.error:
                return 1
            return 1
    return 1


def image_header_info(data: bytes) -> tuple[str | None, int | None, int | None]:
    """(format, width, height) from the file header without decoding; None where unknown."""
    fmt = _sniff(data)
    try:
        if fmt == "jpeg":
            for marker, payload in _jpeg_segments(data):
                if marker in _SOF_MARKERS and len(payload) >= 5:
                    h, w = struct.unpack(">HH", payload[1:5])
                    return fmt, w, h
        elif fmt == "png" and data[12:16] == b"IHDR":
            w, h = struct.unpack(">II", data[16:24])
            return fmt, w, h
        elif fmt == "bmp" and len(data) >= 26:
            (dib,) = struct.unpack("<I", data[14:18])
            if dib == 12:  # OS/2 BITMAPCOREHEADER: 16-bit sizes
                w, h = struct.unpack("<HH", data[18:22])
                return fmt, w, h
            w, h = struct.unpack("<ii", data[18:26])
            return fmt, abs(w), abs(h)
        elif fmt == "gif":
            w, h = struct.unpack("<HH", data[6:10])
            return fmt, w, h
        elif fmt == "webp":
            chunk = data[12:16]
            if chunk == b"VP8X":
                w = 1 + int.from_bytes(data[24:27], "little")
                h = 1 + int.from_bytes(data[27:30], "little")
                return fmt, w, h
            if chunk == b"VP8 ":
                w, h = struct.unpack("<HH", data[26:30])
                return fmt, w & 0x3FFF, h & 0x3FFF
            if chunk == b"VP8L":
                b = data[21:25]
                bits = int.from_bytes(b, "little")
                return fmt, (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    except struct.error:
        pass
    return fmt, None, None


# ------------------------------------------------------------------------------------------
# Pixel normalisation and geometry
# ------------------------------------------------------------------------------------------


def apply_orientation(img: np.ndarray, orientation: int) -> np.ndarray:
    """Turn an image stored with EXIF ``orientation`` into the upright image (TIFF/EXIF spec)."""
    if orientation == 2:
        return cv2.flip(img, 1)
    if orientation == 3:
        return cv2.rotate(img, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(img, 0)
    if orientation == 5:
        return cv2.transpose(img)
    if orientation == 6:
        return cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:
        return cv2.flip(cv2.transpose(img), -1)
    if orientation == 8:
        return cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return img


def _to_uint8(img: np.ndarray) -> np.ndarray:
    if img.dtype == np.uint8:
        return img
    if img.dtype == np.bool_:
        return img.astype(np.uint8) * 255
    if img.dtype == np.uint16:
        return (img >> 8).astype(np.uint8)
    if img.dtype == np.int8:
        return (img.astype(np.int16) + 128).astype(np.uint8)
    if np.issubdtype(img.dtype, np.floating):
        finite = np.nan_to_num(img.astype(np.float32), nan=0.0, posinf=1.0, neginf=0.0)
        peak = float(finite.max()) if finite.size else 0.0
        scale = 255.0 if peak <= 1.0 else (255.0 / peak if peak > 255.0 else 1.0)
        return np.clip(finite * scale, 0, 255).astype(np.uint8)
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        shifted = img.astype(np.float64) - info.min
        return np.clip(shifted * 255.0 / (info.max - info.min), 0, 255).astype(np.uint8)
    raise ImageLoadError(f"unsupported pixel type {img.dtype}")


def normalize_to_bgr8(img: np.ndarray) -> np.ndarray:
    """Any decoded image (grey, grey+alpha, BGR, BGRA; 8/16-bit, float) -> BGR uint8."""
    arr = np.asarray(img)
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[:, :, 0]
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (2, 3, 4)):
        raise ImageLoadError(f"unsupported image shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ImageLoadError("image has no pixels")
    arr = _to_uint8(arr)
    if arr.ndim == 2:
        return cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR)
    if arr.shape[2] == 2:  # grey + alpha
        grey = arr[:, :, 0].astype(np.float32)
        alpha = arr[:, :, 1].astype(np.float32) / 255.0
        out = np.clip(grey * alpha + 255.0 * (1.0 - alpha), 0, 255).astype(np.uint8)
        return cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    if arr.shape[2] == 4:  # BGRA: composite over white
        alpha = arr[:, :, 3:4].astype(np.float32) / 255.0
        out = arr[:, :, :3].astype(np.float32) * alpha + 255.0 * (1.0 - alpha)
        return np.ascontiguousarray(np.clip(out, 0, 255).astype(np.uint8))
    return np.ascontiguousarray(arr)


def _fit(img: np.ndarray, max_side: int) -> np.ndarray:
    h, w = img.shape[:2]
    longest = max(h, w)
    if longest <= max_side:
        return img
    f = max_side / longest
    size = (max(1, int(round(w * f))), max(1, int(round(h * f))))
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA)


# ------------------------------------------------------------------------------------------
# Decoding
# ------------------------------------------------------------------------------------------

_REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8}


def _refuse_unaccepted(fmt: str | None, w: int | None, h: int | None) -> None:
    """Refuse, before any decoder runs, what ``_decode_bytes`` must not decode (module doc)."""
    if fmt == "heic":
        raise ImageLoadError(
            "HEIC/HEIF photo, which OpenCV cannot decode: set the phone camera to JPEG "
            "('Most Compatible') or convert the photo to JPEG"
        )
    if fmt is None:
        raise ImageLoadError("not an image (unrecognised file format)")
    if fmt not in ACCEPTED_FORMATS:
        raise ImageLoadError(
            f"{fmt.upper()} images are not accepted (a phone camera sends JPEG, PNG or WebP): "
            "convert it to JPEG or PNG"
        )
    if w is None or h is None:
        raise ImageLoadError(f"truncated or corrupt {fmt.upper()} file (no image size in its header)")


def _imdecode(buf: np.ndarray, flags: int) -> np.ndarray | None:
    """``cv2.imdecode`` in one of the process's ``DECODE_SLOTS``."""
    if not _DECODE_SEMAPHORE.acquire(timeout=DECODE_WAIT_S):
        raise ImageLoadError("too many images are being read at once; try again in a moment")
    try:
        return cv2.imdecode(buf, flags)
    finally:
        _DECODE_SEMAPHORE.release()


def _decode_bytes(data: bytes, limits: ImageLimits) -> LoadedImage:
    if not data:
        raise ImageLoadError("empty file")
    fmt, w, h = image_header_info(data)
    _refuse_unaccepted(fmt, w, h)
    warnings: list[str] = []
    buf = np.frombuffer(data, np.uint8)
    orientation = jpeg_exif_orientation(data) if fmt == "jpeg" else 1

    if fmt == "jpeg":
        if w is not None and h is not None and (w == 0 or h == 0):
            raise ImageLoadError(f"JPEG header declares an empty image ({w}x{h})")
        factor = 1
        if w and h:
            # DCT scaling is far cheaper than decoding in full and resizing: use it while the
            # decoded image keeps at least half the working size
            while factor < 8 and (
                max(w, h) / (factor * 2) >= limits.work_max_side / 2
                or w * h / (factor * factor) > limits.max_decode_pixels
            ):
                factor *= 2
            if w * h / (factor * factor) > limits.max_decode_pixels:
                raise ImageLoadError(
                    f"image too large to decode ({w}x{h} pixels; the limit is "
                    f"{limits.max_decode_pixels // 1_000_000} megapixels even at 1/8 scale)"
                )
        flags = _REDUCED[factor] | cv2.IMREAD_IGNORE_ORIENTATION
        img = _imdecode(buf, flags)
        if img is None and not data.rstrip(b"\x00")[-2:] == b"\xff\xd9":
            # truncated: close the stream so libjpeg decodes what is there (the rest is grey)
            img = _imdecode(np.frombuffer(data + b"\xff\xd9", np.uint8), flags)
            if img is not None:
                warnings.append("truncated JPEG: only the part present in the file was decoded")
        if img is None:
            raise ImageLoadError("corrupt JPEG (the decoder could not read it)")
        if w is None or h is None:
            h, w = img.shape[0] * factor, img.shape[1] * factor
    else:
        if w is not None and h is not None:
            if w == 0 or h == 0:
                raise ImageLoadError(f"{fmt.upper()} header declares an empty image ({w}x{h})")
            if w * h > limits.max_decode_pixels:
                raise ImageLoadError(
                    f"image too large to decode ({w}x{h} pixels; the limit is "
                    f"{limits.max_decode_pixels // 1_000_000} megapixels)"
                )
        img = _imdecode(buf, cv2.IMREAD_UNCHANGED)
        if img is None:
            raise ImageLoadError(f"truncated or corrupt {fmt.upper()} file (the decoder could not read it)")
        if img.ndim == 3 and img.shape[2] > 4:  # more channels than BGRA: keep the first three
            img = img[:, :, :3]
        if img.size and img.shape[0] * img.shape[1] > limits.max_decode_pixels:
            raise ImageLoadError(
                f"image too large to decode ({img.shape[1]}x{img.shape[0]} pixels; the limit is "
                f"{limits.max_decode_pixels // 1_000_000} megapixels)"
            )
        h, w = img.shape[:2]

    img = normalize_to_bgr8(img)
    img = apply_orientation(img, orientation)
    if orientation in (5, 6, 7, 8):
        w, h = h, w
    img = _fit(img, limits.work_max_side)
    return LoadedImage(
        image=np.ascontiguousarray(img),
        original_size=(int(w), int(h)),
        orientation=orientation,
        format=fmt,
        warnings=tuple(warnings),
    )


def _read_file(path: Path, limits: ImageLimits) -> bytes:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ImageLoadError("file not found") from None
    except PermissionError:
        raise ImageLoadError("permission denied") from None
    except OSError as exc:
        raise ImageLoadError(f"cannot access the file ({exc.strerror or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        raise ImageLoadError("is a directory, not an image file")
    if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
        raise ImageLoadError("not a regular file (a pipe, socket or device)")
    if st.st_size > limits.max_file_bytes:
        raise ImageLoadError(
            f"file too large ({st.st_size // (1024 * 1024)} MiB; the limit is "
            f"{limits.max_file_bytes // (1024 * 1024)} MiB)"
        )
    try:
        with open(path, "rb") as fh:  # bounded read: a growing file or FIFO cannot hang us
            return fh.read(limits.max_file_bytes + 1)
    except PermissionError:
        raise ImageLoadError("permission denied") from None
    except OSError as exc:
        raise ImageLoadError(f"cannot read the file ({exc.strerror or exc})") from None


def load_image(source: ImageSource, limits: ImageLimits = DEFAULT_LIMITS) -> LoadedImage:
    """Load ``source`` (a path, encoded bytes, or a decoded array assumed BGR/BGRA/grey).

    Raises :class:`ImageLoadError` with a reason; never returns an empty image.
    """
    if isinstance(source, np.ndarray):
        if source.size == 0:
            raise ImageLoadError("image has no pixels")
        img = normalize_to_bgr8(source)
        h, w = img.shape[:2]
        return LoadedImage(image=_fit(img, limits.work_max_side), original_size=(w, h))
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > limits.max_file_bytes:
            raise ImageLoadError("image data too large")
        return _decode_bytes(data, limits)
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            data = _read_file(path, limits)
            if len(data) > limits.max_file_bytes:
                raise ImageLoadError("file too large (it grew while being read)")
            return _decode_bytes(data, limits)
        except ImageLoadError as exc:
            raise ImageLoadError(exc.reason, str(source)) from None
    raise TypeError(f"cannot load an image from {type(source).__name__}")
