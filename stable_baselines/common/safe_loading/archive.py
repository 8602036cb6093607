"""
Reading model files within bounds: the whole file, the members of a zip model file, the JSON ``data`` member and
the numpy ``.npz`` archive of the ``parameters`` member.

Every size is checked before it is allocated: the file against :data:`~.limits.MAX_FILE_BYTES`, each zip member's
declared size against its limit (zipfile never returns more than the declared size), the nesting of the JSON text
before it is parsed, and each parameter array's header (dtype, shape) against the model's own variable -- or,
without a model, against the total :data:`~.limits.MAX_PARAMETER_BYTES` -- before its data is read.
"""
import collections
import io
import json
import os
import re
import zipfile
import zlib
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.errors import InvalidModelFileError

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError,
                zipfile.LargeZipFile, RuntimeError)


def read_whole(file_obj: Any, what: str, limit: Optional[int] = None) -> bytes:
    """
    :param file_obj: (file-like) a binary file object opened for reading
    :param what: (str) the file, for messages
    :param limit: (int) the largest size accepted (default :data:`~.limits.MAX_FILE_BYTES`)
    :return: (bytes) its remaining content, read in chunks (a file object may allocate what one read asks for)
    """
    limit = limits.MAX_FILE_BYTES if limit is None else limit
    chunks, size = [], 0
    while True:
        chunk = file_obj.read(min(_CHUNK, limit + 1 - size))
        if isinstance(chunk, str):
            raise TypeError("The file object {} is opened in text mode; open it in binary mode ('rb')".format(what))
        if chunk is None:
            raise InvalidModelFileError("{}: the file object returned no data (non-blocking stream?)".format(what))
        if not chunk:
            break
        chunks.append(bytes(chunk))
        size += len(chunk)
        limits.check_size(size, limit, what)
    return b"".join(chunks)


_CHUNK = 16 << 20


class MemoryFile(io.RawIOBase):
    """
    A read-only, seekable file over bytes already in memory (a bytes object, a numpy array's buffer), without
    copying them: a member of a file can be read as an archive in place.

    :param content: (bytes-like) the content
    """

    def __init__(self, content: Any) -> None:
        super().__init__()
        self._view = memoryview(content).cast("B")
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: len(self._view)}[whence]
        if base + offset < 0:
            raise ValueError("negative seek position {}".format(base + offset))
        self._position = base + offset
        return self._position

    def readinto(self, target: Any) -> int:
        chunk = self._view[self._position:self._position + len(target)]
        memoryview(target).cast("B")[:len(chunk)] = chunk
        self._position += len(chunk)
        return len(chunk)


def member_infos(archive: zipfile.ZipFile, what: str) -> Dict[str, zipfile.ZipInfo]:
    """
    The members of a zip archive by name, refusing an archive of more than :data:`~.limits.MAX_ZIP_MEMBERS` members
    or one that holds two members of the same name (a reader would silently take one of them).

    :param archive: (zipfile.ZipFile) the open archive
    :param what: (str) the archive, for messages
    :return: (dict) name -> ZipInfo, in the archive's order
    :raises InvalidModelFileError: when the archive is too large or ambiguous
    """
    infos = archive.infolist()
    if len(infos) > limits.MAX_ZIP_MEMBERS:
        raise InvalidModelFileError("{} has {} members, more than the {} a file may hold (stable_baselines.common."
                                    "safe_loading.limits.MAX_ZIP_MEMBERS)".format(what, len(infos),
                                                                                  limits.MAX_ZIP_MEMBERS))
    by_name = {info.filename: info for info in infos}
    if len(by_name) != len(infos):
        counts = collections.Counter(info.filename for info in infos)
        repeated = sorted(name for name, count in counts.items() if count > 1)
        raise InvalidModelFileError("{} holds several members named {} (which one to read is ambiguous)".format(
            what, ", ".join(repr(name) for name in repeated[:5])))
    return by_name


class ZipModel(object):
    """
    The members of a zip model file, read on demand within their limits.

    :param content: (bytes) the whole file
    :param what: (str) the file, for messages
    """

    def __init__(self, content: bytes, what: str) -> None:
        self.what = what
        try:
            self._archive = zipfile.ZipFile(io.BytesIO(content), "r")
        except _READ_ERRORS as err:
            raise self.invalid("it is not a readable zip archive ({}: {})".format(type(err).__name__, err)) from err
        self._infos = member_infos(self._archive, what)

    def invalid(self, reason: str) -> InvalidModelFileError:
        """:return: (InvalidModelFileError) naming the file and the reason"""
        return InvalidModelFileError("{} is not a valid Stable Baselines model file: {}".format(self.what, reason))

    def has(self, name: str) -> bool:
        """:return: (bool) whether the archive has the member ``name``"""
        return name in self._infos

    def is_stored(self, name: str) -> bool:
        """:return: (bool) whether the member ``name`` is stored uncompressed (its size is what the file holds)"""
        return self._infos[name].compress_type == zipfile.ZIP_STORED

    def member_names(self) -> List[str]:
        """:return: (list) the names of the members"""
        return list(self._infos)

    def read(self, name: str, limit: int) -> bytes:
        """
        :param name: (str) a member
        :param limit: (int) its largest accepted (decompressed) size
        :return: (bytes) its content
        """
        info = self._infos[name]
        limits.check_size(info.file_size, limit, "the {!r} member of {}".format(name, self.what))
        try:
            with self._archive.open(info) as member:
                content = member.read(limit + 1)
        except _READ_ERRORS as err:
            raise self.invalid("the member {!r} is corrupt or truncated ({}: {})".format(
                name, type(err).__name__, err)) from err
        limits.check_size(len(content), limit, "the {!r} member of {}".format(name, self.what))
        return content

    def read_json(self, name: str, limit: int) -> Any:
        """
        :param name: (str) a member holding UTF-8 JSON
        :param limit: (int) its largest accepted size
        :return: (Any) the parsed JSON
        """
        return parse_json(self.read(name, limit), "the {!r} member of {}".format(name, self.what))


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_JSON_BRACKETS = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """
    :param text: (str) JSON text (maybe malformed)
    :return: (int) how deep its lists and objects nest, counted before anything is parsed (brackets inside strings
        do not count)
    """
    brackets = "".join(_JSON_BRACKETS.findall(_JSON_STRING.sub("", text)))
    if not brackets:
        return 0
    steps = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    opening = (steps == ord("[")) | (steps == ord("{"))
    return int(np.max(np.cumsum(np.where(opening, 1, -1))))


def parse_json(raw: Any, what: str) -> Any:
    """
    Parse JSON text; malformed, too deeply nested or too large text is refused with a clear error.

    :param raw: (bytes or str) the text
    :param what: (str) where it comes from, for messages
    :return: (Any) the parsed value
    """
    try:
        text = raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else raw
    except UnicodeDecodeError as err:
        raise InvalidModelFileError("{} is not UTF-8 text ({})".format(what, err)) from err
    # every list item and object entry but the first is preceded by a comma: an upper bound of what parsing builds,
    # counted before anything is built
    items = text.count(",") + text.count("[") + text.count("{")
    if items > limits.MAX_JSON_ITEMS:
        raise InvalidModelFileError("{} holds more than {} JSON items".format(what, limits.MAX_JSON_ITEMS))
    depth = json_depth(text)
    if depth > limits.MAX_NESTING:
        raise InvalidModelFileError("{} nests lists or objects {} deep, more than the {} a model file may "
                                    "(stable_baselines.common.safe_loading.limits.MAX_NESTING)".format(
                                        what, depth, limits.MAX_NESTING))
    try:
        return json.loads(text)
    except RecursionError as err:
        raise InvalidModelFileError("{} nests lists or objects too deeply".format(what)) from err
    except ValueError as err:
        raise InvalidModelFileError("{} is not valid JSON ({})".format(what, err)) from err


def _array_header(member: Any, what: str, kinds: str = "biufc") -> Tuple[np.dtype, tuple, bool]:
    """The dtype, shape and order of the ``.npy`` data in ``member`` (its file position is left on the data)."""
    try:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(member)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            raise ValueError("unknown .npy format version {}".format(version))
    except (ValueError, TypeError, SyntaxError, EOFError, OSError) as err:
        raise InvalidModelFileError("{} is not a valid .npy array ({}: {})".format(what, type(err).__name__, err)) \
            from err
    if not isinstance(dtype, np.dtype) or dtype.hasobject or dtype.fields is not None or \
            dtype.subdtype is not None or dtype.kind not in kinds:
        raise InvalidModelFileError("{} holds an array of dtype {} (only {} arrays are loaded; object arrays are "
                                    "pickles)".format(what, dtype, "numeric" if kinds == "biufc" else
                                                      "numeric and text"))
    if dtype.itemsize == 0:
        raise InvalidModelFileError("{} holds an array of dtype {}, whose items have no size".format(what, dtype))
    if not isinstance(shape, tuple) or len(shape) > 32 or \
            not all(isinstance(dim, int) and 0 <= dim <= limits.MAX_ARRAY_ELEMENTS for dim in shape):
        raise InvalidModelFileError("{} has shape {!r}, beyond the size limit (at most 32 axes of at most {} "
                                    "entries each: stable_baselines.common.safe_loading.limits)".format(
                                        what, shape, limits.MAX_ARRAY_ELEMENTS))
    return dtype, shape, bool(fortran)


def read_npy_file(path: str, what: str, max_bytes: int, kinds: str = "biuf") -> np.ndarray:
    """
    Read a numpy ``.npy`` file of a numeric array within ``max_bytes``, its header checked before its data is read
    (never unpickling anything).

    :param path: (str) the file
    :param what: (str) the file, for messages
    :param max_bytes: (int) the largest array accepted
    :param kinds: (str) the dtype kinds accepted (numpy's ``dtype.kind`` letters)
    :return: (np.ndarray)
    """
    with open(path, "rb") as file:
        dtype, shape, fortran = _array_header(file, what, kinds)
        n_bytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
        limits.check_size(n_bytes, max_bytes, what)
        raw = file.read(n_bytes)
    if len(raw) != n_bytes:
        raise InvalidModelFileError("{} is truncated: its header declares {} bytes of data, it holds {}".format(
            what, n_bytes, len(raw)))
    return np.frombuffer(raw, dtype=dtype).reshape(shape, order="F" if fortran else "C").copy()


class ParameterArchive(object):
    """
    The ``parameters`` member of a zip model file (a numpy ``.npz`` archive) with its ``parameter_list``, read
    array by array once the expected shapes are known.

    :param content: (bytes) the ``parameters`` member
    :param names: (list) the variable names of ``parameter_list``, in order
    :param what: (str) the file, for messages
    """

    def __init__(self, content: bytes, names: Sequence[str], what: str) -> None:
        self.what = "the 'parameters' member of {}".format(what)
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise InvalidModelFileError("the 'parameter_list' member of {} must be a JSON list of variable names, "
                                        "got {}".format(what, type(names).__name__))
        self.names = list(names)
        try:
            self._archive = zipfile.ZipFile(io.BytesIO(content), "r")
        except _READ_ERRORS as err:
            raise InvalidModelFileError("{} is not a valid numpy .npz archive ({}: {})".format(
                self.what, type(err).__name__, err)) from err
        self._infos = member_infos(self._archive, self.what)
        missing = [name for name in self.names if name + ".npy" not in self._infos and name not in self._infos]
        if missing:
            raise InvalidModelFileError("{} lacks {} variable(s) listed in parameter_list: {} (it has: {})".format(
                self.what, len(missing), missing[:5], sorted(self._infos)[:10]))

    def read(self, expected: Optional[Dict[str, tuple]] = None) -> "OrderedDict[str, np.ndarray]":
        """
        :param expected: (dict) variable name -> shape the model has; a listed variable of another shape is
            refused before its data is read (None: only the total size is bounded)
        :return: (OrderedDict) variable name -> array, in the order of ``parameter_list``
        """
        result = OrderedDict()
        budget = [limits.MAX_PARAMETER_BYTES]
        for name in self.names:
            info = self._infos.get(name + ".npy") or self._infos[name]  # one of them exists (checked at init)
            shape = None if expected is None else expected.get(name)
            result[name] = read_npy_member(self._archive, info, "variable {!r} of {}".format(name, self.what), budget,
                                           shape)
        return result


def read_npy_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, budget: List[int],
                    shape: Optional[tuple] = None, kinds: str = "biufc") -> np.ndarray:
    """
    Read one ``.npy`` member of a numpy ``.npz`` archive within bounds.

    :param archive: (zipfile.ZipFile) the archive
    :param info: (zipfile.ZipInfo) the member
    :param where: (str) the array, for messages
    :param budget: ([int]) the bytes the archive's arrays may still take (decreased)
    :param shape: (tuple) the shape the array must have (None: any)
    :param kinds: (str) the dtype kinds accepted (numpy's ``dtype.kind`` letters)
    :return: (np.ndarray)
    """
    if info.compress_size > archive_size(archive):
        raise InvalidModelFileError("{} declares {} stored bytes, more than the whole archive holds".format(
            where, info.compress_size))
    try:
        with archive.open(info) as member:
            dtype, found, fortran = _array_header(member, where, kinds)
            if shape is not None and tuple(shape) != found:
                raise InvalidModelFileError("{} has shape {}, the model's variable has shape {}".format(
                    where, found, tuple(shape)))
            n_bytes = int(np.prod(found, dtype=object)) * dtype.itemsize
            budget[0] -= n_bytes
            if budget[0] < 0:
                raise InvalidModelFileError("{}: the arrays exceed the size limit "
                                            "(stable_baselines.common.safe_loading.limits)".format(where))
            if info.file_size - member.tell() != n_bytes:
                raise InvalidModelFileError("{}: its header declares {} bytes of data, the member holds {}".format(
                    where, n_bytes, info.file_size - member.tell()))
            raw = member.read(n_bytes)
    except InvalidModelFileError:
        raise
    except _READ_ERRORS as err:
        raise InvalidModelFileError("{} is corrupt or truncated ({}: {})".format(where, type(err).__name__, err)) \
            from err
    if len(raw) != n_bytes:
        raise InvalidModelFileError("{} is truncated".format(where))
    array = np.frombuffer(raw, dtype=dtype).reshape(found, order="F" if fortran else "C")
    return array.copy(order="F" if fortran else "C")


def archive_size(archive: zipfile.ZipFile) -> int:
    """:return: (int) the size in bytes of the file (or buffer) behind a zip archive"""
    handle = archive.fp
    if handle is None:
        raise ValueError("the zip archive is closed")
    position = handle.tell()
    try:
        return handle.seek(0, io.SEEK_END)
    finally:
        handle.seek(position)


def read_npz_file(path: str, what: str) -> Dict[str, np.ndarray]:
    """
    Read a numpy ``.npz`` file of numeric and text arrays (an expert dataset) within
    :data:`~.limits.MAX_DATASET_BYTES`, never unpickling anything.

    :param path: (str) the file
    :param what: (str) the file, for messages
    :return: (dict) name -> array
    """
    limits.check_size(os.path.getsize(path), limits.MAX_FILE_BYTES, what)
    try:
        archive = zipfile.ZipFile(path, "r")
    except _READ_ERRORS as err:
        raise InvalidModelFileError("{} is not a numpy .npz archive ({}: {})".format(what, type(err).__name__, err)) \
            from err
    with archive:
        infos = member_infos(archive, what).values()
        budget = [limits.MAX_DATASET_BYTES]
        arrays = {}
        for info in infos:
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            if key in arrays:  # 'obs' and 'obs.npy'
                raise InvalidModelFileError("{} holds two arrays named {!r}".format(what, key))
            arrays[key] = read_npy_member(archive, info, "array {!r} of {}".format(info.filename, what), budget,
                                          kinds="biufcUS")
        return arrays


def read_parameter_archive(model: ZipModel) -> Optional[ParameterArchive]:
    """
    :param model: (ZipModel) a zip model file
    :return: (ParameterArchive) its parameters, or None when it has no ``parameters`` member
    """
    if not model.has("parameters"):
        return None
    if not model.has("parameter_list"):
        raise model.invalid("the archive has a 'parameters' member but no 'parameter_list' member (the order of the "
                            "parameters)")
    names = model.read_json("parameter_list", limits.MAX_PARAMETER_LIST_BYTES)
    return ParameterArchive(model.read("parameters", limits.MAX_PARAMETER_BYTES + (64 << 20)), names, model.what)
