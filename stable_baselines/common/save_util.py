"""
Reading and writing Stable Baselines model files.

Two formats exist (see "On saving and loading" in the manual):

- the zip archive (stable-baselines > 2.7.0, the default): members ``data`` (JSON of the class parameters;
  values that JSON cannot hold are stored as ``{":type:": str(type), ":serialized:": base64(cloudpickle),
  <first-level attributes as text>}``), ``parameters`` (the bytes of ``numpy.savez``, one member per TensorFlow
  variable, named by its full name plus ``.npy``) and ``parameter_list`` (JSON list of the variable names,
  in order). Members are stored uncompressed, as the original library wrote them;
- the older cloudpickle file (stable-baselines <= 2.7.0): ``cloudpickle.dump((data, params))``.

Both are written exactly as the original library wrote them, so files interchange. Reading never runs code
from a file: every pickle goes through :mod:`stable_baselines.common.safe_loading`, and every size is bounded
(:mod:`stable_baselines.common.safe_loading.limits`). Saving to a path is atomic
(temporary file in the same directory, fsync, rename), so a crash never destroys the previous file.
"""
import base64
import binascii
import contextlib
import io
import json
import os
import sys
import tempfile
import warnings
import zipfile
from collections import OrderedDict
from typing import IO, Any, Callable, Dict, Iterator, List, Mapping, NamedTuple, Optional, Tuple, Union

import cloudpickle
import numpy as np

from stable_baselines.common.storage import extra_members
from stable_baselines.common.safe_loading import limits, load_pickle
from stable_baselines.common.safe_loading.archive import ZIP_MAGIC, ParameterArchive, ZipModel, parse_json, \
    read_parameter_archive, read_whole
from stable_baselines.common.safe_loading.errors import InvalidModelFileError, SafeUnpicklingError

__all__ = ["InvalidModelFileError", "SafeUnpicklingError", "ModelFileNotFoundError", "is_json_serializable",
           "data_to_json", "json_to_data", "params_to_bytes", "bytes_to_params", "save_to_zip", "load_from_zip",
           "save_to_pkl", "load_from_pkl", "load_model_file", "read_model_file", "read_model_contents",
           "ModelParameters", "ModelFile", "PICKLE_PROTOCOL"]

# protocol 4 is readable by every Python 3.4+ (the original library ran on 3.5 - 3.7)
PICKLE_PROTOCOL = 4
PathOrFile = Union[str, "os.PathLike[str]", io.IOBase, Any]


class ModelFileNotFoundError(FileNotFoundError, ValueError):
    """
    No model file at the given path (nor with the '.zip' / '.pkl' extension added). It is a
    ``FileNotFoundError`` and, as the original library raised ``ValueError`` here, also a ``ValueError``.
    """


# ----------------------------------------------------------------------------------------------
# JSON data
# ----------------------------------------------------------------------------------------------
def is_json_serializable(item: Any) -> bool:
    """
    Test if an object is serializable into JSON

    :param item: (object) The object to be tested for JSON serialization.
    :return: (bool) True if object is JSON serializable, false otherwise.
    """
    try:
        json.dumps(item)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return False
    return True


# where TensorFlow 2 defines the public functions of tf.nn / tf.math (the ones a policy_kwargs may hold)
_TF_FUNCTION_MODULES = ("tensorflow.python.ops.math_ops", "tensorflow.python.ops.nn_ops", "tensorflow.python.ops.nn",
                        "tensorflow.python.ops.gen_math_ops", "tensorflow.python.ops.gen_nn_ops",
                        "tensorflow.python.ops.standard_ops")


def _tf_functions_in(value: Any, depth: int = 3) -> Iterator[Any]:
    """Functions of TensorFlow found in ``value`` (itself, or inside dicts / lists / tuples)."""
    if callable(value) and str(getattr(value, "__module__", "")).startswith("tensorflow"):
        yield value
    elif depth > 0 and isinstance(value, dict):
        for item in value.values():
            yield from _tf_functions_in(item, depth - 1)
    elif depth > 0 and isinstance(value, (list, tuple)):
        for item in value:
            yield from _tf_functions_in(item, depth - 1)


@contextlib.contextmanager
def _tf_functions_by_reference(value: Any) -> Iterator[None]:
    """
    Let pickle store the TensorFlow functions in ``value`` by reference, as the original's files did
    (``tensorflow.python.ops.math_ops.tanh``). In TF 2, functions such as ``tf.nn.tanh`` are dispatch wrappers
    whose ``__module__`` names a module where a different object lives, so pickle would refuse them; for the
    time of the pickling, their ``__module__`` names a module that really holds them.
    """
    patched = []
    try:
        for function in _tf_functions_in(value):
            name = getattr(function, "__qualname__", None)
            home = sys.modules.get(function.__module__)
            if not isinstance(name, str) or getattr(home, name, None) is function:
                continue
            for module_name in _TF_FUNCTION_MODULES:
                if getattr(sys.modules.get(module_name), name, None) is function:
                    patched.append((function, function.__module__))
                    function.__module__ = module_name
                    break
        yield
    finally:
        for function, module_name in patched:
            function.__module__ = module_name


def data_to_json(data: Dict[str, Any]) -> str:
    """
    Turn data (class parameters) into a JSON string for storing

    Values that JSON cannot hold are serialized with cloudpickle and stored base64-encoded under the key
    ``:serialized:``, with ``:type:`` (``str(type(value))``) and, for dicts and objects with a ``__dict__``,
    their first-level attributes (as JSON when possible, else as text) so the file can be inspected without
    unpickling anything.

    :param data: (Dict[str, Any]) Dictionary of class parameters to be stored. Items that are not JSON
        serializable will be pickled with Cloudpickle and stored as bytearray in the JSON file
    :return: (str) JSON string of the data serialized.
    """
    if not isinstance(data, dict):
        raise TypeError("data_to_json expects a dict of class parameters, got {!r}".format(type(data).__name__))
    serializable_data = {}
    for data_key, data_item in data.items():
        if is_json_serializable(data_item):
            serializable_data[data_key] = data_item
            continue
        try:
            with _tf_functions_by_reference(data_item):
                pickled = cloudpickle.dumps(data_item, protocol=PICKLE_PROTOCOL)
        except Exception as err:  # pylint: disable=broad-except
            raise TypeError("Cannot save entry {!r} of the model data: a {} is neither JSON serializable nor "
                            "picklable ({}: {})".format(data_key, type(data_item).__name__, type(err).__name__,
                                                        err)) from err
        cloudpickle_serialization = {
            ":type:": str(type(data_item)),
            ":serialized:": base64.b64encode(pickled).decode(),
        }
        if isinstance(data_item, dict) or hasattr(data_item, "__dict__"):
            items = data_item.items() if isinstance(data_item, dict) else vars(data_item).items()
            for variable_name, variable_item in items:
                if is_json_serializable(variable_item):
                    cloudpickle_serialization[str(variable_name)] = variable_item
                else:
                    cloudpickle_serialization[str(variable_name)] = str(variable_item)
        serializable_data[data_key] = cloudpickle_serialization
    return json.dumps(serializable_data, indent=4)


def json_to_data(json_string: Union[str, bytes], custom_objects: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """
    Turn JSON serialization of class-parameters back into dictionary.

    Entries stored with ``:serialized:`` are read by :mod:`stable_baselines.common.safe_loading`, which builds
    only the kinds of values a model file legitimately holds and never runs code from the file.

    :param json_string: (str) JSON serialization of the class-parameters that should be loaded.
    :param custom_objects: (dict) Dictionary of objects to replace upon loading. If a variable is present in
        this dictionary as a key, it will not be deserialized and the corresponding item will be used instead.
        Similar to custom_objects in `keras.models.load_model`. Useful when you have an object in file that can
        not be deserialized.
    :return: (dict) Loaded class parameters.
    :raises InvalidModelFileError: the text is not a JSON object of entries, or an entry cannot be loaded
    """
    return _entries_from_json(parse_json(json_string, "the model data"), "the model data", custom_objects)


def _entries_from_json(json_dict: Any, what: str, custom_objects: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    custom_objects = _checked_custom_objects(custom_objects)
    if not isinstance(json_dict, dict):
        raise InvalidModelFileError("{} must be a JSON object (dict), got a {}".format(what, type(json_dict).__name__))
    budget = limits.Budget()  # shared by the file's pickles
    return_data = {}
    for data_key, data_item in json_dict.items():
        if data_key in custom_objects:
            return_data[data_key] = custom_objects[data_key]
        elif isinstance(data_item, dict) and ":serialized:" in data_item:
            return_data[data_key] = _serialized_entry(data_key, data_item[":serialized:"], what, budget)
        else:
            return_data[data_key] = data_item
    return return_data


def _serialized_entry(key: str, text: Any, what: str, budget: limits.Budget) -> Any:
    if not isinstance(text, str):
        raise InvalidModelFileError("The ':serialized:' value of entry {!r} of {} must be a base64 string, got "
                                    "a {}".format(key, what, type(text).__name__))
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError) as err:
        raise InvalidModelFileError("The ':serialized:' value of entry {!r} of {} is not valid base64 ({})".format(
            key, what, err)) from err
    return load_pickle(raw, what, key=key, budget=budget)


def _checked_custom_objects(custom_objects: Any) -> Dict[str, Any]:
    if custom_objects is not None and not isinstance(custom_objects, dict):
        raise ValueError("custom_objects argument must be a dict or None, got {!r}".format(
            type(custom_objects).__name__))
    return custom_objects or {}


# ----------------------------------------------------------------------------------------------
# parameters
# ----------------------------------------------------------------------------------------------
def params_to_bytes(params: Dict[str, np.ndarray]) -> bytes:
    """
    Turn params (OrderedDict of variable name -> ndarray) into serialized bytes for storing.

    Note: `numpy.savez` does not save the ordering.

    :param params: (OrderedDict) Dictionary mapping variable names to numpy arrays of the current parameters
        of the model.
    :return: (bytes) Bytes object of the serialized content.
    """
    if not isinstance(params, dict):
        raise TypeError("params_to_bytes expects a dict (OrderedDict) of variable name -> array, got {!r}".format(
            type(params).__name__))
    # values typed Any: they go to np.savez as keyword arguments, which mypy would match against allow_pickle
    arrays: Dict[str, Any] = OrderedDict()
    for name, value in params.items():
        if not isinstance(name, str):
            raise TypeError("Parameter names must be strings, got {!r}".format(name))
        array = np.asarray(value)
        if array.dtype.hasobject:
            raise TypeError("Parameter {!r} is an object array; only numeric arrays can be saved".format(name))
        arrays[name] = array
    byte_file = io.BytesIO()
    np.savez(byte_file, **arrays)
    return byte_file.getvalue()


def bytes_to_params(serialized_params: bytes, param_list: List[str]) -> "OrderedDict[str, np.ndarray]":
    """
    Turn serialized parameters (bytes) back into OrderedDictionary.

    :param serialized_params: (byte) Serialized parameters with `numpy.savez`.
    :param param_list: (list) List of strings, representing the order of parameters in which they should be
        returned
    :return: (OrderedDict) Dictionary mapping variable name to numpy array of the parameters.
    :raises InvalidModelFileError: the bytes are not a numpy archive of numeric arrays holding these names, or are
        too large
    """
    return ParameterArchive(bytes(serialized_params), list(param_list) if isinstance(param_list, tuple) else
                            param_list, "the given bytes").read()


# ----------------------------------------------------------------------------------------------
# atomic writes
# ----------------------------------------------------------------------------------------------
def _is_path(path_or_file: Any) -> bool:
    return isinstance(path_or_file, (str, bytes, os.PathLike))


def _current_umask() -> int:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _refuse_missing_directory(path: str, directory: str) -> None:
    """
    Raise the error that says why ``directory`` (the folder of ``path``) cannot take the file: a file stands in
    its place or in the place of one of its parents (NotADirectoryError), or it does not exist
    (FileNotFoundError).
    """
    current = directory
    while not os.path.exists(current) and os.path.dirname(current) != current:
        current = os.path.dirname(current)
    if os.path.exists(current) and not os.path.isdir(current):
        raise NotADirectoryError("Cannot save to {!r}: {!r} is a file, not a directory".format(path, current))
    raise FileNotFoundError("Cannot save to {!r}: the directory {!r} does not exist".format(path, directory))


def _atomic_write(path: str, write: Callable[[Any], None]) -> None:
    """
    Write a file atomically: ``write(file_object)`` fills a temporary file in the same directory, which is
    flushed, fsync'ed and renamed over ``path``. On any error the temporary file is removed and the
    previous file (if any) is left untouched.

    :param path: (str) destination
    :param write: (callable) writes the content to the binary file object it is given
    """
    if os.path.islink(path):  # write through a symbolic link, as open(path, "wb") would
        path = os.path.realpath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        _refuse_missing_directory(path, directory)
    if os.path.isdir(path):
        raise IsADirectoryError("Cannot save to {!r}: it is a directory".format(path))
    if os.path.exists(path):
        mode = os.stat(path).st_mode & 0o777
    else:
        mode = 0o666 & ~_current_umask()
    fd, tmp_path = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as file_handler:
            write(file_handler)
            file_handler.flush()
            os.fsync(file_handler.fileno())
        os.chmod(tmp_path, mode)
        os.replace(tmp_path, path)
    except BaseException:
        try:
            os.remove(tmp_path)
        except OSError:
            pass
        raise
    try:  # make the rename durable
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def _with_default_extension(path: Any, extension: str) -> str:
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    _, ext = os.path.splitext(path)
    if ext == "":
        path += extension
    return path


# ----------------------------------------------------------------------------------------------
# zip format
# ----------------------------------------------------------------------------------------------
def _write_zip(file_obj: Any, serialized_data: Optional[str], params: Optional[Dict[str, np.ndarray]],
               members: Mapping[str, bytes]) -> None:
    # the original library: zipfile.ZipFile(path, "w") (ZIP_STORED), members data, parameters, parameter_list;
    # our extra members (which it ignores) come after them
    with zipfile.ZipFile(file_obj, "w", compression=zipfile.ZIP_STORED) as archive:
        if serialized_data is not None:
            archive.writestr("data", serialized_data)
        if params is not None:
            archive.writestr("parameters", params_to_bytes(params))
            archive.writestr("parameter_list", json.dumps(list(params.keys()), indent=4))
        extra_members.write_members(archive, members)


def save_to_zip(save_path_or_file: PathOrFile, data: Optional[Dict[str, Any]] = None,
                params: Optional[Dict[str, np.ndarray]] = None,
                extra: Optional[Mapping[str, Any]] = None) -> Optional[str]:
    """
    Save model data and parameters to a zip archive, in the original library's format.

    A path without extension gets '.zip' (as the original did). Saving to a path is atomic: the previous file
    is replaced only once the new one is completely written. A file-like object is written directly.

    :param save_path_or_file: (str or file-like) Where to store the model
    :param data: (dict) Class parameters being stored (None: no ``data`` member)
    :param params: (OrderedDict) Model parameters (variable name -> array) being stored, in order
        (None: no ``parameters`` / ``parameter_list`` members)
    :param extra: (dict) registered extra members, name -> value (JSON value or dict of arrays, see
        :mod:`stable_baselines.common.storage.extra_members`), written after the original's three members
    :return: (str) the path written to, or None for a file-like object
    """
    serialized_data = data_to_json(data) if data is not None else None
    if params is not None and not isinstance(params, dict):
        raise TypeError("params must be an OrderedDict of variable name -> array, got {!r}".format(
            type(params).__name__))
    members = extra_members.encode_members(extra or {})
    if _is_path(save_path_or_file):
        path = _with_default_extension(save_path_or_file, ".zip")
        _atomic_write(path, lambda file_handler: _write_zip(file_handler, serialized_data, params, members))
        return path
    _check_writable(save_path_or_file)
    _write_zip(save_path_or_file, serialized_data, params, members)
    return None


def _check_writable(file_obj: Any) -> IO[bytes]:
    """:return: (file-like) ``file_obj``, refused unless it has a ``write`` method"""
    if not hasattr(file_obj, "write"):
        raise TypeError("Expected a path or a binary file object opened for writing, got {!r}".format(
            type(file_obj).__name__))
    return file_obj


def _resolve_load_path(load_path: Any, extensions: Tuple[str, ...]) -> str:
    path = os.fspath(load_path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    tried = [path]
    if os.path.isfile(path):
        return path
    for extension in extensions:
        candidate = path + extension
        tried.append(candidate)
        if os.path.isfile(candidate):
            return candidate
    if os.path.isdir(path):
        raise IsADirectoryError("Cannot load a model from {!r}: it is a directory".format(path))
    raise ModelFileNotFoundError("Error: the file {} could not be found (tried: {})".format(
        path, ", ".join(repr(name) for name in tried)))


def _name_of(path_or_file: Any) -> str:
    if _is_path(path_or_file):
        return repr(os.fsdecode(os.fspath(path_or_file)))
    name = getattr(path_or_file, "name", None)
    if isinstance(name, str):
        return repr(name)
    return "the given {} object".format(type(path_or_file).__name__)


def _invalid(what: str, reason: str) -> InvalidModelFileError:
    return InvalidModelFileError("{} is not a valid Stable Baselines model file: {}".format(what, reason))


class ModelParameters(object):
    """
    The parameters of a model file, read when the model knows the shapes of its variables (so that an array of
    another size is refused before it is allocated).

    :param archive: (ParameterArchive) the ``parameters`` member of a zip file
    :param values: (list or dict) the arrays an old ``.pkl`` file held (already read, within its size)
    """

    def __init__(self, archive: Optional[ParameterArchive] = None, values: Any = None) -> None:
        self.archive = archive
        self.values = values

    def read(self, expected: Optional[Dict[str, tuple]] = None) -> Any:
        """
        :param expected: (dict) variable name -> shape of the model's variables (None: not known)
        :return: (OrderedDict or list) variable name -> array (an unnamed list for most old ``.pkl`` files), or
            None when the file holds no parameters
        """
        if self.archive is not None:
            return self.archive.read(expected)
        return self.values


class ModelFile(NamedTuple):
    """
    What a model file holds, as :func:`read_model_contents` returns it.

    :param data: (dict) the class parameters (None when not read, or absent)
    :param params: (ModelParameters) the parameters, read once the model knows its variables
    :param members: (dict) the registered extra members of a zip file, decoded (see
        :mod:`stable_baselines.common.storage.extra_members`); empty for ``.pkl`` files
    :param what: (str) the file, for messages
    """

    data: Optional[Dict[str, Any]]
    params: ModelParameters
    members: Dict[str, Any]
    what: str


def _read_zip(content: bytes, what: str, custom_objects: Optional[Dict[str, Any]], load_data: bool,
              with_members: bool) -> ModelFile:
    model = ZipModel(content, what)
    if not model.has("data") and not model.has("parameters"):
        raise model.invalid("the zip archive has neither a 'data' nor a 'parameters' member (members: {})".format(
            model.member_names()[:10]))
    data = None
    if model.has("data") and load_data:
        data = _entries_from_json(model.read_json("data", limits.MAX_DATA_BYTES), "the 'data' member of {}".format(
            what), custom_objects)
    members = extra_members.read_members(model) if with_members else {}
    return ModelFile(data, ModelParameters(archive=read_parameter_archive(model)), members, what)


def load_from_zip(load_path_or_file: PathOrFile, custom_objects: Optional[Dict[str, Any]] = None,
                  load_data: bool = True) -> Tuple[Optional[Dict[str, Any]], Optional["OrderedDict[str, np.ndarray]"]]:
    """
    Load model data and parameters from a zip archive.

    :param load_path_or_file: (str or file-like) the file; for a path that does not exist, the path with
        '.zip' added is tried
    :param custom_objects: (dict) Dictionary of objects to replace upon loading. If a variable is present in
        this dictionary as a key, it will not be deserialized and the corresponding item will be used instead.
    :param load_data: (bool) whether to read the class parameters (``data``); False returns None for them
    :return: (dict, OrderedDict) class parameters (None if absent) and parameters (variable name -> array,
        in the stored order; None if absent)
    :raises ModelFileNotFoundError: no such file
    :raises InvalidModelFileError: the file is not a valid (zip) model file
    :raises SafeUnpicklingError: an entry refers to something that may not be loaded
    """
    data, params = read_model_file(load_path_or_file, custom_objects, load_data, formats=("zip",))
    return data, params.read()


# ----------------------------------------------------------------------------------------------
# cloudpickle format
# ----------------------------------------------------------------------------------------------
def save_to_pkl(save_path_or_file: PathOrFile, data: Optional[Dict[str, Any]] = None, params: Any = None) -> \
        Optional[str]:
    """
    Save model data and parameters in the older cloudpickle format: ``cloudpickle.dump((data, params))``.

    A path without extension gets '.pkl' (as the original did). Saving to a path is atomic.

    :param save_path_or_file: (str or file-like) Where to store the model
    :param data: (dict) Class parameters being stored
    :param params: (OrderedDict or list) Model parameters being stored
    :return: (str) the path written to, or None for a file-like object
    """
    payload = cloudpickle.dumps((data, params), protocol=PICKLE_PROTOCOL)
    if _is_path(save_path_or_file):
        path = _with_default_extension(save_path_or_file, ".pkl")
        _atomic_write(path, lambda file_handler: file_handler.write(payload))
        return path
    _check_writable(save_path_or_file).write(payload)
    return None


def _read_pkl(content: bytes, what: str, custom_objects: Optional[Dict[str, Any]]) -> Tuple[Any, ModelParameters]:
    value = load_pickle(content, what, custom_objects=_checked_custom_objects(custom_objects))
    if not (isinstance(value, tuple) and len(value) == 2):
        raise _invalid(what, "expected a pickled tuple (data, params), got a {}".format(type(value).__name__))
    data, params = value
    if data is not None and not isinstance(data, dict):
        raise _invalid(what, "the class parameters (data) should be a dict, got a {}".format(type(data).__name__))
    if params is not None:
        params = _numeric_arrays(params, what)
    return data, ModelParameters(values=params)


def _numeric_arrays(params: Any, what: str) -> Any:
    """The parameters of an old pickle file: a list or dict of numeric arrays (scalars become 0-d arrays)."""
    def as_array(value: Any) -> np.ndarray:
        if isinstance(value, np.generic):
            value = np.asarray(value)
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "biufc":
            raise _invalid(what, "the parameters should be numeric arrays, found a {}".format(type(value).__name__))
        return value
    if isinstance(params, dict):
        return type(params)((name, as_array(value)) for name, value in params.items())
    if isinstance(params, (list, tuple)):
        return [as_array(value) for value in params]
    raise _invalid(what, "the parameters should be a list or a dict of arrays, got a {}".format(
        type(params).__name__))


def load_from_pkl(load_path_or_file: PathOrFile, custom_objects: Optional[Dict[str, Any]] = None) -> \
        Tuple[Optional[Dict[str, Any]], Any]:
    """
    Load model data and parameters from the older cloudpickle format, with the restricted unpickler.

    :param load_path_or_file: (str or file-like) the file; for a path that does not exist, the path with
        '.pkl' added is tried
    :param custom_objects: (dict) values replacing the entries of the same keys in the class parameters
        (those entries are not checked)
    :return: (dict, list or OrderedDict) class parameters and parameters as stored (an unnamed list of arrays,
        or an OrderedDict name -> array)
    :raises ModelFileNotFoundError: no such file
    :raises InvalidModelFileError: the file is not a valid model file
    :raises SafeUnpicklingError: the file refers to something that may not be loaded
    """
    data, params = read_model_file(load_path_or_file, custom_objects, True, formats=("pkl",))
    return data, params.read()


# ----------------------------------------------------------------------------------------------
# either format
# ----------------------------------------------------------------------------------------------
def read_model_contents(path_or_file: PathOrFile, custom_objects: Optional[Dict[str, Any]] = None,
                        load_data: bool = True, formats: Tuple[str, ...] = ("zip", "pkl"),
                        with_members: bool = True) -> ModelFile:
    """
    Read a model file of either format, detected from its content, leaving the parameters to be read once the
    model knows its variables (:meth:`ModelParameters.read`); the registered extra members of a zip file are
    read too.

    :param path_or_file: (str or file-like) the file; for a path that does not exist, the path with the format's
        extension added ('.zip', then '.pkl') is tried (as the original library did)
    :param custom_objects: (dict) values replacing the class parameters of the same keys, which are not read
    :param load_data: (bool) whether to read the class parameters (False returns None for them; a zip file then
        needs no ``data`` member)
    :param formats: (tuple) the formats accepted: 'zip', 'pkl'
    :param with_members: (bool) also read the registered extra members (False: ``members`` is empty)
    :return: (ModelFile) class parameters, parameters and extra members
    :raises ModelFileNotFoundError: no such file
    :raises InvalidModelFileError: the file is not a valid model file or holds something a model file may not
    """
    custom_objects = _checked_custom_objects(custom_objects)
    if _is_path(path_or_file):
        path = _resolve_load_path(path_or_file, tuple("." + name for name in formats))
        what = repr(path)
        size = os.path.getsize(path)
        limits.check_size(size, limits.MAX_FILE_BYTES, "the model file {}".format(what))
        with open(path, "rb") as file_handler:
            content = file_handler.read(size)
    else:
        if not hasattr(path_or_file, "read"):
            raise TypeError("Expected a path or a binary file object opened for reading, got {!r}".format(
                type(path_or_file).__name__))
        what = _name_of(path_or_file)
        content = read_whole(path_or_file, what)
    if not content:
        raise _invalid(what, "the file is empty")
    if content[:4] in ZIP_MAGIC and "zip" in formats:
        return _read_zip(content, what, custom_objects, load_data, with_members)
    if content[:1] == b"\x80" and "pkl" in formats:
        if formats != ("pkl",):
            warnings.warn("It appears you are loading from a file with old format. Older cloudpickle format has been "
                          "replaced with zip-archived models. Consider saving the model with new format.",
                          DeprecationWarning)
        data, params = _read_pkl(content, what, custom_objects)
        return ModelFile(data if load_data else None, params, {}, what)
    expected = "neither a zip archive nor a pickle" if len(formats) == 2 else \
        "not {}".format({"zip": "a zip archive", "pkl": "a pickle"}[formats[0]])
    raise _invalid(what, "it is {} (it starts with {!r})".format(expected, content[:4]))


def read_model_file(path_or_file: PathOrFile, custom_objects: Optional[Dict[str, Any]] = None,
                    load_data: bool = True, formats: Tuple[str, ...] = ("zip", "pkl")) -> \
        Tuple[Optional[Dict[str, Any]], ModelParameters]:
    """
    :func:`read_model_contents` without the extra members.

    :param path_or_file: (str or file-like) the file (see :func:`read_model_contents`)
    :param custom_objects: (dict) values replacing the class parameters of the same keys, which are not read
    :param load_data: (bool) whether to read the class parameters
    :param formats: (tuple) the formats accepted: 'zip', 'pkl'
    :return: (dict, ModelParameters) class parameters and parameters
    """
    contents = read_model_contents(path_or_file, custom_objects, load_data, formats, with_members=False)
    return contents.data, contents.params


def load_model_file(path_or_file: PathOrFile, custom_objects: Optional[Dict[str, Any]] = None,
                    load_data: bool = True) -> Tuple[Optional[Dict[str, Any]], Any]:
    """
    Load a model file of either format, detected from its content (zip archive or cloudpickle).

    :param path_or_file: (str or file-like) the file; for a path that does not exist, the path with '.zip'
        and then '.pkl' added is tried (as the original library did)
    :param custom_objects: (dict) Dictionary of objects to replace upon loading. If a variable is present in
        this dictionary as a key, it will not be deserialized and the corresponding item will be used instead.
    :param load_data: (bool) whether to return the class parameters (False returns None for them)
    :return: (dict, OrderedDict or list) class parameters and parameters (an OrderedDict name -> array for zip
        files; for old pickle files whatever they hold: usually an unnamed list of arrays)
    :raises ModelFileNotFoundError: no such file
    :raises InvalidModelFileError: the file is not a valid model file (truncated, corrupt, too large, another
        kind of file) or holds something a model file may not hold (:class:`SafeUnpicklingError`)
    """
    data, params = read_model_file(path_or_file, custom_objects, load_data)
    return data, params.read()
