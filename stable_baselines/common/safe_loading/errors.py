"""The two errors of loading: a file that is not a valid model file, and content a file may not hold."""
import pickle
from typing import Optional


class InvalidModelFileError(ValueError, RuntimeError):
    """
    A file is not a valid Stable Baselines model file: truncated, corrupt, too large, of another kind, or holding
    something a model file may not hold. It is a ``ValueError`` and, as the original library raised
    ``RuntimeError`` for a corrupt entry, a ``RuntimeError`` too.
    """


class SafeUnpicklingError(InvalidModelFileError, pickle.UnpicklingError):
    """
    A pickle in the file refers to something that loading never builds (a function call, a class outside the
    legitimate kinds, ...). Nothing from the file was executed.

    :param message: (str) what was found and how to supply the value instead
    :param key: (str) the entry of the model data that holds it (None when unknown)
    :param target: (str) the dotted name of what was refused (None when unknown)
    """

    def __init__(self, message: str, key: Optional[str] = None, target: Optional[str] = None) -> None:
        super().__init__(message)
        self.key = key
        self.target = target


def custom_objects_hint(key: Optional[str]) -> str:
    """
    :param key: (str) the data entry concerned, or None
    :return: (str) one sentence telling how to supply the value without reading it from the file
    """
    if key is None:
        return ("If you trust the value, build it yourself and pass it as custom_objects={'<key>': value} "
                "when loading.")
    return "If you trust the value, build it yourself and pass custom_objects={{{!r}: value}} when loading.".format(
        key)
