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
from a file: every pickle goes through :mod:`stable_baselines.common.safe_pickle`. Saving to a path is atomic
(temporary file in the same directory, fsync, rename), so a crash never destroys the previous file.
"""
import base64
import contextlib
import io
import json
import os
import pickle
import sys
import tempfile
import warnings
import zipfile
import zlib
from collections import OrderedDict
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

import cloudpickle
import numpy as np

from stable_baselines.common.safe_pickle import SafeUnpicklingError, safe_load, safe_loads_base64

__all__ = ["InvalidModelFileError", "ModelFileNotFoundError", "is_json_serializable", "data_to_json",
           "json_to_data", "params_to_bytes", "bytes_to_params", "save_to_zip", "load_from_zip", "save_to_pkl",
           "load_from_pkl", "load_model_file", "PICKLE_PROTOCOL"]

# protocol 4 is readable by every Python 3.4+ (the original library ran on 3.5 - 3.7)
PICKLE_PROTOCOL = 4
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
PathOrFile = Union[str, "os.PathLike[str]", io.IOBase, Any]


class InvalidModelFileError(ValueError):
    """A file is not a valid Stable Baselines model file (truncated, corrupt, or of another kind)."""


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

    Entries stored with ``:serialized:`` are unpickled with the restricted unpickler
    (:func:`stable_baselines.common.safe_pickle.safe_loads`): nothing from the file is executed.

    :param json_string: (str) JSON serialization of the class-parameters that should be loaded.
    :param custom_objects: (dict) Dictionary of objects to replace upon loading. If a variable is present in
        this dictionary as a key, it will not be deserialized and the corresponding item will be used instead.
        Similar to custom_objects in `keras.models.load_model`. Useful when you have an object in file that can
        not be deserialized.
    :return: (dict) Loaded class parameters.
    """
    if custom_objects is not None and not isinstance(custom_objects, dict):
        raise ValueError("custom_objects argument must be a dict or None, got {!r}".format(
            type(custom_objects).__name__))
    custom_objects = custom_objects or {}
    if isinstance(json_string, (bytes, bytearray)):
        json_string = json_string.decode("utf-8")
    json_dict = json.loads(json_string)
    if not isinstance(json_dict, dict):
        raise ValueError("The model data must be a JSON object (dict), got a {}".format(type(json_dict).__name__))
    return_data = {}
    for data_key, data_item in json_dict.items():
        if data_key in custom_objects:
            return_data[data_key] = custom_objects[data_key]
        elif isinstance(data_item, dict) and ":serialized:" in data_item:
            serialization = data_item[":serialized:"]
            if not isinstance(serialization, str):
                raise ValueError("The ':serialized:' value of entry {!r} must be a base64 string, got {!r}".format(
                    data_key, type(serialization).__name__))
            return_data[data_key] = safe_loads_base64(serialization, key=data_key)
        else:
            return_data[data_key] = data_item
    return return_data


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
    arrays = OrderedDict()
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
    """
    if not isinstance(param_list, (list, tuple)) or not all(isinstance(name, str) for name in param_list):
        raise ValueError("parameter_list must be a list of variable names (strings), got {!r}".format(param_list))
    try:
        npz = np.load(io.BytesIO(serialized_params), allow_pickle=False)
    except Exception as err:  # pylint: disable=broad-except
        raise ValueError("The parameters are not a valid numpy .npz archive: {}: {}".format(
            type(err).__name__, err)) from err
    if not hasattr(npz, "files"):
        raise ValueError("The parameters are a single numpy array, not a numpy .npz archive")
    return_dictionary = OrderedDict()
    with npz:
        available = set(npz.files)
        missing = [name for name in param_list if name not in available]
        if missing:
            raise ValueError("The parameters archive lacks {} variable(s) listed in parameter_list: {} (it has: "
                             "{})".format(len(missing), missing[:5], sorted(available)[:10]))
        for variable_name in param_list:
            try:
                return_dictionary[variable_name] = npz[variable_name]
            except Exception as err:  # pylint: disable=broad-except
                raise ValueError("Could not read parameter {!r}: {}: {}".format(
                    variable_name, type(err).__name__, err)) from err
    return return_dictionary


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
        raise FileNotFoundError("Cannot save to {!r}: the directory {!r} does not exist".format(path, directory))
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
def _write_zip(file_obj: Any, serialized_data: Optional[str], params: Optional[Dict[str, np.ndarray]]) -> None:
    # the original library: zipfile.ZipFile(path, "w") (ZIP_STORED), members data, parameters, parameter_list
    with zipfile.ZipFile(file_obj, "w", compression=zipfile.ZIP_STORED) as archive:
        if serialized_data is not None:
            archive.writestr("data", serialized_data)
        if params is not None:
            archive.writestr("parameters", params_to_bytes(params))
            archive.writestr("parameter_list", json.dumps(list(params.keys()), indent=4))


def save_to_zip(save_path_or_file: PathOrFile, data: Optional[Dict[str, Any]] = None,
                params: Optional[Dict[str, np.ndarray]] = None) -> Optional[str]:
    """
    Save model data and parameters to a zip archive, in the original library's format.

    A path without extension gets '.zip' (as the original did). Saving to a path is atomic: the previous file
    is replaced only once the new one is completely written. A file-like object is written directly.

    :param save_path_or_file: (str or file-like) Where to store the model
    :param data: (dict) Class parameters being stored (None: no ``data`` member)
    :param params: (OrderedDict) Model parameters (variable name -> array) being stored, in order
        (None: no ``parameters`` / ``parameter_list`` members)
    :return: (str) the path written to, or None for a file-like object
    """
    serialized_data = data_to_json(data) if data is not None else None
    if params is not None and not isinstance(params, dict):
        raise TypeError("params must be an OrderedDict of variable name -> array, got {!r}".format(
            type(params).__name__))
    if _is_path(save_path_or_file):
        path = _with_default_extension(save_path_or_file, ".zip")
        _atomic_write(path, lambda file_handler: _write_zip(file_handler, serialized_data, params))
        return path
    _check_writable(save_path_or_file)
    _write_zip(save_path_or_file, serialized_data, params)
    return None


def _check_writable(file_obj: Any) -> None:
    if not hasattr(file_obj, "write"):
        raise TypeError("Expected a path or a binary file object opened for writing, got {!r}".format(
            type(file_obj).__name__))


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


def _read_zip(file_obj: Any, what: str, custom_objects: Optional[Dict[str, Any]],
              load_data: bool) -> Tuple[Optional[Dict[str, Any]], Optional["OrderedDict[str, np.ndarray]"]]:
    try:
        archive = zipfile.ZipFile(file_obj, "r")
    except zipfile.BadZipFile as err:
        raise _invalid(what, "not a readable zip archive ({})".format(err)) from err
    except (EOFError, OSError, ValueError) as err:
        raise _invalid(what, "cannot read the zip archive ({}: {})".format(type(err).__name__, err)) from err
    with archive:
        namelist = archive.namelist()

        def read_member(name: str) -> bytes:
            try:
                return archive.read(name)
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError) as err:
                raise _invalid(what, "the archive member {!r} is corrupt or truncated ({}: {})".format(
                    name, type(err).__name__, err)) from err

        if "data" not in namelist and "parameters" not in namelist:
            raise _invalid(what, "the zip archive has neither a 'data' nor a 'parameters' member (members: "
                                 "{})".format(namelist[:10]))
        data = None
        params = None
        if "data" in namelist and load_data:
            raw = read_member("data")
            try:
                data = json_to_data(raw.decode("utf-8"), custom_objects=custom_objects)
            except (UnicodeDecodeError, json.JSONDecodeError) as err:
                raise _invalid(what, "the 'data' member is not valid JSON ({})".format(err)) from err
            except SafeUnpicklingError:
                raise
            except pickle.UnpicklingError as err:
                raise _invalid(what, "an entry of the 'data' member cannot be read ({})".format(err)) from err
        if "parameters" in namelist:
            if "parameter_list" not in namelist:
                raise _invalid(what, "the archive has a 'parameters' member but no 'parameter_list' member (the "
                                     "order of the parameters)")
            raw_list = read_member("parameter_list")
            try:
                parameter_list = json.loads(raw_list.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as err:
                raise _invalid(what, "the 'parameter_list' member is not valid JSON ({})".format(err)) from err
            serialized_params = read_member("parameters")
            try:
                params = bytes_to_params(serialized_params, parameter_list)
            except ValueError as err:
                raise _invalid(what, str(err)) from err
    return data, params


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
    if _is_path(load_path_or_file):
        path = _resolve_load_path(load_path_or_file, (".zip",))
        with open(path, "rb") as file_handler:
            return _read_zip(file_handler, repr(path), custom_objects, load_data)
    return _read_zip(load_path_or_file, _name_of(load_path_or_file), custom_objects, load_data)


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
    _check_writable(save_path_or_file)
    save_path_or_file.write(payload)
    return None


def _read_pkl(file_obj: Any, what: str, custom_objects: Optional[Dict[str, Any]]) -> Tuple[Any, Any]:
    try:
        value = safe_load(file_obj, custom_objects=custom_objects)
    except SafeUnpicklingError:
        raise
    except pickle.UnpicklingError as err:
        raise _invalid(what, "the pickle cannot be read ({})".format(err)) from err
    if not (isinstance(value, tuple) and len(value) == 2):
        raise _invalid(what, "expected a pickled tuple (data, params), got a {}".format(type(value).__name__))
    data, params = value
    if data is not None and not isinstance(data, dict):
        raise _invalid(what, "the class parameters (data) should be a dict, got a {}".format(type(data).__name__))
    if params is not None and not isinstance(params, (list, tuple, dict)):
        raise _invalid(what, "the parameters should be a list or a dict of arrays, got a {}".format(
            type(params).__name__))
    return data, params


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
    if _is_path(load_path_or_file):
        path = _resolve_load_path(load_path_or_file, (".pkl",))
        with open(path, "rb") as file_handler:
            return _read_pkl(file_handler, repr(path), custom_objects)
    return _read_pkl(load_path_or_file, _name_of(load_path_or_file), custom_objects)


# ----------------------------------------------------------------------------------------------
# either format
# ----------------------------------------------------------------------------------------------
def _peek(file_obj: Any, size: int) -> Tuple[bytes, Any]:
    """Read the first bytes of a file object; returns them and a file object positioned at the start."""
    try:
        seekable = file_obj.seekable()
    except (AttributeError, ValueError, OSError):
        seekable = False
    if seekable:
        position = file_obj.tell()
        head = file_obj.read(size)
        file_obj.seek(position)
        return head, file_obj
    content = file_obj.read()
    return content[:size], io.BytesIO(content)


def _load_any(file_obj: Any, what: str, custom_objects: Optional[Dict[str, Any]], load_data: bool) -> \
        Tuple[Optional[Dict[str, Any]], Any]:
    if not hasattr(file_obj, "read"):
        raise TypeError("Expected a path or a binary file object opened for reading, got {!r}".format(
            type(file_obj).__name__))
    head, file_obj = _peek(file_obj, 4)
    if isinstance(head, str):
        raise TypeError("The file object {} is opened in text mode; open it in binary mode ('rb')".format(what))
    if not head:
        raise _invalid(what, "the file is empty")
    if head in _ZIP_MAGIC:
        return _read_zip(file_obj, what, custom_objects, load_data)
    if head[:1] == b"\x80":
        warnings.warn("It appears you are loading from a file with old format. Older cloudpickle format has been "
                      "replaced with zip-archived models. Consider saving the model with new format.",
                      DeprecationWarning)
        data, params = _read_pkl(file_obj, what, custom_objects)
        return (data if load_data else None), params
    raise _invalid(what, "it is neither a zip archive nor a pickle (it starts with {!r})".format(head))


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
    :raises InvalidModelFileError: the file is not a valid model file (truncated, corrupt, another kind of file)
    :raises SafeUnpicklingError: the file refers to something that may not be loaded
    """
    if custom_objects is not None and not isinstance(custom_objects, dict):
        raise ValueError("custom_objects argument must be a dict or None, got {!r}".format(
            type(custom_objects).__name__))
    if _is_path(path_or_file):
        path = _resolve_load_path(path_or_file, (".zip", ".pkl"))
        with open(path, "rb") as file_handler:
            return _load_any(file_handler, repr(path), custom_objects, load_data)
    return _load_any(path_or_file, _name_of(path_or_file), custom_objects, load_data)
