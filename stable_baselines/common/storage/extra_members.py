"""
Extra members of a zip model file: content stored beside ``data``, ``parameters`` and ``parameter_list``.

The original library opens those three members by name and never looks at the others, so a file with extra
members still loads there; this library, in turn, skips every member it has no registration for (files
written by later versions load here). No pickle is involved on either side. A member is one of two kinds,
told by the end of its name:

* ``<name>.json``: a JSON value (``json.dumps(..., allow_nan=False)``, UTF-8), read back with the loader's
  JSON guards (:func:`~stable_baselines.common.safe_loading.archive.parse_json`);
* ``<name>.npz``: a dict of numeric or boolean numpy arrays, written as a numpy ``.npz`` archive with
  ``allow_pickle=False``; read array by array, each header (dtype, shape) checked before its data is
  allocated, object arrays refused.

Member names are lower-case words (letters, digits, ``_``, ``-``, ``.``), optionally in ``/``-separated
folders, ending in ``.json`` or ``.npz`` (``vec_normalize.npz``, ``training_state/optimizer.npz``).

API (the persistence code and the features that add content to a model file):

* :func:`register_member` ``(name, max_bytes) -> name``: declare a member and the largest (decompressed) size
  accepted when reading it. Only registered members are written or read.
* :func:`encode_members` ``({name: value}) -> {name: bytes}``: check and encode values (a JSON value for
  ``.json``, a dict ``str -> array`` for ``.npz``) before a file is touched;
* :func:`write_members` ``(archive, {name: bytes})``: add encoded members to an open ``zipfile.ZipFile``;
* :func:`read_members` ``(zip_model) -> {name: value}``: the registered members a file has, decoded and
  validated (within their size bounds); unknown members are ignored.

A model takes part through two hooks of ``BaseRLModel``:

* ``_extra_members_to_save(self) -> Dict[str, Any]``: name -> value of the members ``save`` writes
  (called before the file is opened; the base class stores the ``VecNormalize`` statistics);
* ``_restore_extra_members(self, members: Dict[str, Any], what: str) -> None``: called by ``load`` (through the
  public ``restore_extra_members``) once the model is built, its parameters loaded and its environment set, with
  the decoded members of the file (an empty dict for files without any, and for ``.pkl`` files) and the file's
  description for messages.

A subclass (or a feature) extends them with ``super()`` and merges its own names.
"""
import io
import json
import re
import zipfile
from collections import OrderedDict
from typing import Any, Dict, Mapping

import numpy as np

from stable_baselines.common.safe_loading.archive import ZipModel, member_infos, parse_json, read_npy_member
from stable_baselines.common.safe_loading.errors import InvalidModelFileError

__all__ = ["register_member", "registered_members", "encode_members", "write_members", "read_members",
           "check_member_name"]

_NAME = re.compile(r"^(?:[a-z0-9][a-z0-9_.-]*/)*[a-z0-9][a-z0-9_.-]*\.(?:json|npz)$")
_ARRAY_NAME = re.compile(r"^[A-Za-z0-9_.:/-]{1,200}$")
_MAX_NAME_LENGTH = 200
# the members of the original's format, never an extra member
_ORIGINAL_MEMBERS = ("data", "parameters", "parameter_list")

# member name -> largest decompressed size read
_REGISTRY: Dict[str, int] = {}


def check_member_name(name: Any) -> str:
    """
    :param name: (str) a proposed member name
    :return: (str) the name, when it is a valid extra member name (ValueError otherwise)
    """
    if not isinstance(name, str) or len(name) > _MAX_NAME_LENGTH or not _NAME.match(name) or ".." in name \
            or name in _ORIGINAL_MEMBERS:
        raise ValueError("{!r} is not a valid extra member name: lower-case letters, digits, '_', '-', '.', "
                         "optionally in '/'-separated folders, ending in '.json' or '.npz'".format(name))
    return name


def register_member(name: str, max_bytes: int) -> str:
    """
    Declare an extra member that models write and read.

    :param name: (str) the member name (see the module's documentation)
    :param max_bytes: (int) the largest decompressed size accepted when reading it
    :return: (str) the name
    """
    check_member_name(name)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
        raise ValueError("max_bytes of the extra member {!r} must be a positive int, got {!r}".format(
            name, max_bytes))
    _REGISTRY[name] = max_bytes
    return name


def registered_members() -> Dict[str, int]:
    """
    :return: (dict) name -> largest size, of every registered extra member
    """
    return dict(_REGISTRY)


def _is_json(name: str) -> bool:
    return name.endswith(".json")


def _encode_json(name: str, value: Any) -> bytes:
    try:
        return json.dumps(value, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as err:
        raise TypeError("The extra member {!r} must be a JSON value without NaN or infinity ({})".format(
            name, err)) from err


def _encode_arrays(name: str, arrays: Any) -> bytes:
    if not isinstance(arrays, Mapping):
        raise TypeError("The extra member {!r} must be a dict of arrays, got a {}".format(name, type(arrays).__name__))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for key, value in arrays.items():
            if not isinstance(key, str) or not _ARRAY_NAME.match(key):
                raise TypeError("Array names of the extra member {!r} must be short strings of letters, digits and "
                                "'_.:/-', got {!r}".format(name, key))
            array = np.asarray(value)
            if array.dtype.kind not in "biuf" or array.dtype.fields is not None:
                raise TypeError("Array {!r} of the extra member {!r} has dtype {}; only numeric and boolean arrays "
                                "are stored".format(key, name, array.dtype))
            with archive.open(key + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.array(array, order="C", copy=True), allow_pickle=False)
    return buffer.getvalue()


def encode_members(members: Mapping[str, Any]) -> "OrderedDict[str, bytes]":
    """
    Check the names and encode the values of extra members (nothing is written).

    :param members: (dict) name -> value: a JSON value for ``.json`` members, a dict ``str -> np.ndarray``
        (numeric or boolean) for ``.npz`` members
    :return: (OrderedDict) name -> encoded bytes, in the given order
    """
    encoded: "OrderedDict[str, bytes]" = OrderedDict()
    for name, value in members.items():
        check_member_name(name)
        if name not in _REGISTRY:
            raise ValueError("The extra member {!r} is not registered (register_member)".format(name))
        encoded[name] = _encode_json(name, value) if _is_json(name) else _encode_arrays(name, value)
    return encoded


def write_members(archive: zipfile.ZipFile, members: Mapping[str, bytes]) -> None:
    """
    Add encoded extra members to a zip archive open for writing (stored, as the original's members are).

    :param archive: (zipfile.ZipFile) the model file being written
    :param members: (dict) name -> bytes, as :func:`encode_members` returns them
    """
    for name, content in members.items():
        check_member_name(name)
        if not isinstance(content, (bytes, bytearray)):
            raise TypeError("The extra member {!r} must be given as bytes (encode_members), got a {}".format(
                name, type(content).__name__))
        archive.writestr(name, bytes(content), compress_type=zipfile.ZIP_STORED)


def _decode_arrays(raw: bytes, where: str, max_bytes: int) -> "OrderedDict[str, np.ndarray]":
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw), "r")
        infos = list(member_infos(archive, where).values())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as err:
        raise InvalidModelFileError("{} is not a numpy .npz archive ({}: {})".format(where, type(err).__name__, err)) \
            from err
    arrays: "OrderedDict[str, np.ndarray]" = OrderedDict()
    budget = [max_bytes]
    with archive:
        for info in infos:
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            if not _ARRAY_NAME.match(key) or key in arrays:
                raise InvalidModelFileError("{} has an invalid or repeated array name {!r}".format(where, key))
            arrays[key] = read_npy_member(archive, info, "array {!r} of {}".format(key, where), budget,
                                          kinds="biuf")
    return arrays


def read_members(model: ZipModel) -> Dict[str, Any]:
    """
    Read the registered extra members of a zip model file; other members are ignored.

    :param model: (ZipModel) the model file
    :return: (dict) name -> the parsed JSON value (``.json``) or an OrderedDict of arrays (``.npz``)
    :raises InvalidModelFileError: a member is too large, corrupt, or not of its kind
    """
    members: Dict[str, Any] = {}
    for name, max_bytes in _REGISTRY.items():
        if not model.has(name):
            continue
        where = "the {!r} member of {}".format(name, model.what)
        if not model.is_stored(name):
            # save writes them uncompressed: what they hold is then never more than the file itself (a compressed
            # member could inflate to the declared limit before anything of it is checked)
            raise InvalidModelFileError("{} is compressed; the extra members of a model file are stored "
                                        "uncompressed by save (this file was not written by it)".format(where))
        raw = model.read(name, max_bytes)
        members[name] = parse_json(raw, where) if _is_json(name) else _decode_arrays(raw, where, max_bytes)
    return members
