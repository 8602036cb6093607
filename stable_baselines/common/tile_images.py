"""Tile a batch of images into one big image (used to render several environments at once)."""
from typing import Sequence, Union

import numpy as np


def tile_images(img_nhwc: Union[Sequence[np.ndarray], np.ndarray]) -> np.ndarray:
    """
    Tile N images into one big P x Q image, (P, Q) chosen to be as close as possible to a square,
    with P >= Q. Missing places are filled with black (zeros).

    :param img_nhwc: (list or np.ndarray) the images, shape (n_images, height, width, n_channels)
    :return: (np.ndarray) the tiled image, shape (P * height, Q * width, n_channels)
    """
    img_nhwc = np.asarray(img_nhwc)
    if img_nhwc.ndim != 4:
        raise ValueError("tile_images expected images of shape (n_images, height, width, n_channels), got an array "
                         "of shape {}".format(img_nhwc.shape))
    n_images, height, width, n_channels = img_nhwc.shape
    if n_images == 0:
        raise ValueError("tile_images expected at least one image, got none")
    # new_height was named this way because it is the number of rows of images
    new_height = int(np.ceil(np.sqrt(n_images)))
    new_width = int(np.ceil(float(n_images) / new_height))
    padding = np.zeros((new_height * new_width - n_images, height, width, n_channels), dtype=img_nhwc.dtype)
    img_nhwc = np.concatenate([img_nhwc, padding], axis=0)
    out_image = img_nhwc.reshape((new_height, new_width, height, width, n_channels))
    out_image = out_image.transpose(0, 2, 1, 3, 4)
    return out_image.reshape((new_height * height, new_width * width, n_channels))
