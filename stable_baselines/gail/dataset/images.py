"""
The image files of an expert dataset whose observations are paths (``generate_expert_traj`` on image observations).

Datasets travel between people, so their images are read as untrusted input: only the formats the libraries write
(PNG, JPEG as the original library wrote by default, and ``.npy``), each by its own reader chosen from the file
name and checked against the file's first bytes (never by guessing the format from the content, which would let
Pillow hand a PostScript file to Ghostscript), within :data:`~stable_baselines.common.safe_loading.limits.
MAX_IMAGE_BYTES`; and the paths of a dataset read from a file must lead inside the folder of that file.
"""
import os
from typing import Any, Iterable

import numpy as np

from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.archive import read_npy_file
from stable_baselines.common.safe_loading.errors import InvalidModelFileError

# file name extension -> (Pillow's name of the format, the first bytes of such a file)
_PICTURE_FORMATS = {".png": ("PNG", b"\x89PNG\r\n\x1a\n"), ".jpg": ("JPEG", b"\xff\xd8\xff"),
                    ".jpeg": ("JPEG", b"\xff\xd8\xff")}


def _refused(path: str, reason: str) -> InvalidModelFileError:
    return InvalidModelFileError("Expert image {!r}: {}".format(path, reason))


def _read_picture(path: str, extension: str) -> np.ndarray:
    pillow_format, magic = _PICTURE_FORMATS[extension]
    try:
        from PIL import Image  # pylint: disable=import-outside-toplevel
    except ImportError as error:  # pragma: no cover - Pillow comes with matplotlib
        raise ImportError("Reading image observations needs Pillow (`pip install pillow`)") from error
    with open(path, "rb") as file:
        start = file.read(len(magic))
        if start != magic:
            raise _refused(path, "expected a {} file (it starts with {!r}), got a file starting with {!r}".format(
                pillow_format, magic, start))
        file.seek(0)
        try:
            with Image.open(file, formats=[pillow_format]) as picture:
                width, height = picture.size
                n_bytes = width * height * len(picture.getbands())
                if n_bytes > limits.MAX_IMAGE_BYTES:
                    raise _refused(path, "a {}x{} image of {} bytes, more than the {} bytes an expert image may "
                                   "hold (stable_baselines.common.safe_loading.limits.MAX_IMAGE_BYTES)".format(
                                       width, height, n_bytes, limits.MAX_IMAGE_BYTES))
                return np.asarray(picture)
        except InvalidModelFileError:
            raise
        except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as error:
            raise _refused(path, "not a readable {} image ({}: {})".format(pillow_format, type(error).__name__,
                                                                           error)) from error


def load_image(image_path: str) -> np.ndarray:
    """
    Read one recorded observation image: ``.png``, ``.jpg``/``.jpeg`` (with Pillow, that format only) or ``.npy``
    (numeric arrays only, never pickles). The result has the shape (height, width, channels), channels in RGB(A)
    order.

    :param image_path: (str) path of the image
    :return: (np.ndarray) the image, uint8 for picture files
    :raises InvalidModelFileError: for another kind of file, a file whose content is not of its format, or an image
        above the size bound
    """
    if not os.path.isfile(image_path):
        raise FileNotFoundError("Expert image not found: {!r} (image paths are resolved relative to the current "
                                "directory, then to the folder of the .npz file)".format(image_path))
    extension = os.path.splitext(image_path)[1].lower()
    if extension == ".npy":
        image = read_npy_file(image_path, "expert image {!r}".format(image_path), limits.MAX_IMAGE_BYTES)
    elif extension in _PICTURE_FORMATS:
        image = _read_picture(image_path, extension)
    else:
        raise _refused(image_path, "expected a .png, .jpg/.jpeg or .npy file, got a {!r} file".format(extension))
    if image.ndim not in (2, 3):
        raise _refused(image_path, "expected an image of 2 or 3 dimensions, got shape {}".format(image.shape))
    if image.ndim == 2:
        image = image[:, :, None]
    return image


def _inside(path: str, folder: str) -> bool:
    return os.path.commonpath([path, folder]) == folder


def resolve_in_folder(paths: Iterable[Any], folder: str) -> np.ndarray:
    """
    The image paths of a dataset read from a file, each leading inside that file's folder: a relative path from
    the folder, else the recorded folder and file name in it (``generate_expert_traj`` stores paths that include
    the folder of the archive, maybe absolute). Links are followed before the check.

    :param paths: ([str or bytes]) the paths stored in the dataset
    :param folder: (str) the folder of the dataset file
    :return: (np.ndarray) the resolved paths
    :raises InvalidModelFileError: when a path leads nowhere inside the folder
    """
    root = os.path.realpath(folder)
    resolved = []
    for path in paths:
        path = path.decode() if isinstance(path, bytes) else str(path)
        candidates = [] if os.path.isabs(path) else [os.path.join(root, path)]
        candidates.append(os.path.join(root, os.path.basename(os.path.dirname(path)), os.path.basename(path)))
        for candidate in candidates:
            real = os.path.realpath(candidate)
            if _inside(real, root) and os.path.isfile(real):
                resolved.append(real)
                break
        else:
            raise InvalidModelFileError("The expert dataset in {!r} names the image {!r}, which is not a file inside "
                                        "the dataset's folder (images are read from there only)".format(root, path))
    return np.array(resolved)
