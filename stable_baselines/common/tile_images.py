"""Tile a batch of images into one big image (used to render several environments at once)."""
from typing import Sequence, Union

import numpy as np


def tile_images(img_nhwc: Union[Sequence[np.ndarray], np.ndarray]) -> np.ndarray:
    """
    Arrange N images on a grid as close to a square as possible (rows >= columns), filling the
    empty cells with black.

    :param img_nhwc: (list or np.ndarray) the images, shape (n_images, height, width, n_channels)
    :return: (np.ndarray) the grid, shape (rows * height, columns * width, n_channels)
    """
    images = np.asarray(img_nhwc)
    if images.ndim != 4:
        raise ValueError("tile_images expected images of shape (n_images, height, width, n_channels), got an array "
                         "of shape {}".format(images.shape))
    n_images, height, width, n_channels = images.shape
    if n_images == 0:
        raise ValueError("tile_images expected at least one image, got none")
    n_rows = int(np.ceil(np.sqrt(n_images)))
    n_columns = int(np.ceil(float(n_images) / n_rows))
    blanks = np.zeros((n_rows * n_columns - n_images, height, width, n_channels), dtype=images.dtype)
    grid = np.concatenate([images, blanks], axis=0).reshape((n_rows, n_columns, height, width, n_channels))
    # (row, column, y, x, c) -> (row, y, column, x, c): image rows stacked, then pixel rows
    return grid.swapaxes(1, 2).reshape((n_rows * height, n_columns * width, n_channels))
