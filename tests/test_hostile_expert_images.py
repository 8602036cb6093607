"""
Expert datasets whose observations are image paths come from strangers: their images are read only as the formats
the libraries write, by explicit format, from inside the dataset's folder, within a size bound, and no program is
ever started (a fake ``gs`` on the PATH would leave a marker file if Pillow's EPS reader ran Ghostscript).
"""
import io
import os
import stat
import struct
import zlib
from typing import Any, List

import numpy as np
import pytest

from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.gail import ExpertDataset
from stable_baselines.gail.dataset.images import load_image

EPS_HEADER = (b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 8 8\n"
              b"newpath 0 0 moveto 8 8 lineto stroke showpage\n%%EOF\n")


@pytest.fixture
def fake_ghostscript(tmp_path: Any, monkeypatch: Any) -> str:
    """:return: (str) the file a fake ``gs`` on the PATH creates when it is started"""
    folder = tmp_path / "bin"
    folder.mkdir()
    marker = str(tmp_path / "ghostscript-was-started")
    for name in ("gs", "gswin32c", "gswin64c"):
        script = folder / name
        script.write_text("#!/bin/sh\ntouch '{}'\nexit 1\n".format(marker))
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(folder) + os.pathsep + os.environ.get("PATH", ""))
    return marker


def _dataset_bytes(paths: List[str]) -> bytes:
    out = io.BytesIO()
    n = len(paths)
    np.savez(out, obs=np.array(paths), actions=np.zeros((n, 1), np.float32), rewards=np.zeros(n),
             episode_returns=np.zeros(1), episode_starts=np.eye(1, n, dtype=bool)[0])
    return out.getvalue()


def _next_batch(expert_path: str) -> Any:
    dataset = ExpertDataset(expert_path=expert_path, batch_size=2, verbose=0, sequential_preprocessing=True)
    return dataset.get_next_batch("train")


@pytest.mark.parametrize("name", ["polyglot.eps", "polyglot.npz"])
def test_a_dataset_that_is_also_a_postscript_file_starts_no_program(tmp_path: Any, fake_ghostscript: str,
                                                                    name: str) -> None:
    """One file both an EPS image and an npz archive whose image paths point at the file itself."""
    path = tmp_path / name
    path.write_bytes(EPS_HEADER + _dataset_bytes([name] * 4))
    with pytest.raises(InvalidModelFileError, match="expected a .png, .jpg/.jpeg or .npy file"):
        _next_batch(str(path))
    assert not os.path.exists(fake_ghostscript)


def test_a_postscript_file_named_png_is_refused(tmp_path: Any, fake_ghostscript: str) -> None:
    (tmp_path / "frame.png").write_bytes(EPS_HEADER)
    path = tmp_path / "expert.npz"
    path.write_bytes(_dataset_bytes(["frame.png"] * 4))
    with pytest.raises(InvalidModelFileError, match="expected a PNG file"):
        _next_batch(str(path))
    assert not os.path.exists(fake_ghostscript)


@pytest.mark.parametrize("stored", ["../outside/frame.npy", "OUTSIDE_ABSOLUTE"])
def test_images_outside_the_dataset_folder_are_refused(tmp_path: Any, stored: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    np.save(str(outside / "frame.npy"), np.zeros((4, 4, 3), np.uint8))
    folder = tmp_path / "dataset"
    folder.mkdir()
    stored = str(outside / "frame.npy") if stored == "OUTSIDE_ABSOLUTE" else stored
    (folder / "expert.npz").write_bytes(_dataset_bytes([stored] * 4))
    with pytest.raises(InvalidModelFileError, match="not a file inside the dataset's folder"):
        ExpertDataset(expert_path=str(folder / "expert.npz"), batch_size=2, verbose=0)


def test_recorded_paths_are_found_inside_the_folder(tmp_path: Any) -> None:
    """What generate_expert_traj stores (the archive's folder in the path, maybe absolute) is found after a move."""
    folder = tmp_path / "moved"
    (folder / "recorded_images").mkdir(parents=True)
    for index in range(4):
        np.save(str(folder / "recorded_images" / "{}.npy".format(index)), np.full((4, 4, 2), index, np.uint8))
    stored = ["/somewhere/else/recorded_images/{}.npy".format(index) for index in range(4)]
    (folder / "expert.npz").write_bytes(_dataset_bytes(stored))
    dataset = ExpertDataset(expert_path=str(folder / "expert.npz"), batch_size=4, verbose=0, randomize=False,
                            train_fraction=0.5, sequential_preprocessing=True)
    obs, _ = dataset.get_next_batch("train")
    assert obs.shape == (2, 4, 4, 2) and sorted(np.unique(obs)) == [0, 1]


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header declares ``width`` x ``height`` RGB pixels (its data is one empty row)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00"))
            + chunk(b"IEND", b""))


@pytest.mark.parametrize("width, height", [(6000, 6000), (100000, 100000)])
def test_an_image_above_the_size_bound_is_refused_before_decoding(tmp_path: Any, width: int, height: int) -> None:
    path = tmp_path / "huge.png"
    path.write_bytes(_png_header(width, height))
    with pytest.raises(InvalidModelFileError, match="huge.png"):
        load_image(str(path))


@pytest.mark.parametrize("array", [np.array(["a", "b"], dtype="U0").reshape(2), np.array([{"x": 1}], dtype=object)],
                         ids=["zero-size items", "objects"])
def test_npy_images_of_other_dtypes_are_refused(tmp_path: Any, array: np.ndarray) -> None:
    path = tmp_path / "frame.npy"
    np.save(str(path), array, allow_pickle=True)
    with pytest.raises(InvalidModelFileError, match="frame.npy"):
        load_image(str(path))


def test_a_real_png_still_loads(tmp_path: Any) -> None:
    from PIL import Image
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    Image.fromarray(pixels).save(str(tmp_path / "frame.png"))
    np.testing.assert_array_equal(load_image(str(tmp_path / "frame.png")), pixels)
