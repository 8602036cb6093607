"""
:class:`ModelFiles`, what a model keeps and hands over: its parameters (``get_parameters``,
``load_parameters``), its model file (``save``, ``load``, the extra members beside the original's three),
its export as an inference function or a Stable-Baselines3 model, and the part of its training state that an
algorithm adds. :class:`~stable_baselines.common.model.base.BaseRLModel` inherits it; nothing here is on the
way from the constructor to a training step.
"""
import warnings
from abc import abstractmethod
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Tuple, Type, TypeVar

import numpy as np

from stable_baselines.common import save_util, tf_util
from stable_baselines.common.export import ExportSpec, check_export_format, export_model
from stable_baselines.common.gym_compat import convert_space
from stable_baselines.common.model import normalization, parameters as parameter_io
from stable_baselines.common.model.data_parallel import DataParallel
from stable_baselines.common.model.loading import load_model
from stable_baselines.common.model.training_state import restore_training_state_members, training_state_members
from stable_baselines.common.storage.persistence import COMMON_SETTINGS, SettingKind
from stable_baselines.common.vec_env import VecNormalize
from stable_baselines.common.vec_env.vec_normalize import NormalizationStatistics

_Model = TypeVar("_Model", bound="ModelFiles")


class ModelFiles:
    """
    The parameters, model file, export and training-state extras of a model (the part of
    :class:`~stable_baselines.common.model.base.BaseRLModel` that stores and carries it).
    """

    # the settings a model file holds for this algorithm (saved in this order, before COMMON_SETTINGS); names of
    # older versions' files that are read and dropped; kinds of the settings that the defaults do not tell
    # (see stable_baselines.common.storage.persistence)
    _saved_settings: Tuple[str, ...] = ()
    _legacy_settings: Tuple[str, ...] = ()
    _setting_kinds: Dict[str, SettingKind] = {}

    # of BaseRLModel: the session and graph, the model's spaces and env, and what its file may hold beside them
    sess: Any
    graph: Any
    observation_space: Optional[Any]
    env: Any
    _vectorize_action: bool
    _vec_normalize_env: Optional[VecNormalize]
    _file_normalization: Optional[NormalizationStatistics]
    _param_load_ops: Optional["OrderedDict[str, Tuple[Any, Any]]"]
    _data_parallel: Optional[DataParallel]

    @abstractmethod
    def get_normalization_statistics(self) -> Optional[NormalizationStatistics]:
        """:return: (NormalizationStatistics) the statistics a model file stores (see BaseRLModel)"""

    @abstractmethod
    def set_env(self, env: Any) -> None:
        """:param env: (gymnasium.Env, VecEnv or str) the environment to train on from now on (see BaseRLModel)"""

    # ------------------------------------------------------------------ parameters
    @abstractmethod
    def get_parameter_list(self) -> List[Any]:
        """
        :return: ([tf.Variable]) the variables that a saved model holds (all that continued training needs)
        """

    def get_parameters(self) -> "OrderedDict[str, np.ndarray]":
        """
        :return: (OrderedDict) variable name -> value, for every variable of ``get_parameter_list``
        """
        variables = self.get_parameter_list()
        return OrderedDict((var.name, value) for var, value in zip(variables, self.sess.run(variables)))

    def _setup_load_operations(self) -> None:
        """Build the assign operations of ``load_parameters`` (once per graph)."""
        if self._param_load_ops is not None:
            raise RuntimeError("Parameter load operations have already been created")
        self._param_load_ops = parameter_io.make_assign_ops(self.graph, self.get_parameter_list())

    def load_parameters(self, load_path_or_dict: Any, exact_match: bool = True) -> None:
        """
        Set the model's parameters (not its hyper-parameters, nor the optimizers' state) from a model file or a
        dict of variable name -> array (the names of ``get_parameters``).

        :param load_path_or_dict: (str, file-like or dict) a model file, or the values by variable name
        :param exact_match: (bool) require a value for every parameter and nothing else (RuntimeError otherwise);
            False: set only the variables given
        """
        if self._param_load_ops is None:
            self._setup_load_operations()
        assign_ops = self._param_load_ops
        assert assign_ops is not None, "_setup_load_operations builds them"
        params = parameter_io.read_source(load_path_or_dict, assign_ops, self._params_from_list)
        ops, feed = parameter_io.assign_feed(assign_ops, params, exact_match)
        tf_util.session_run(self.sess, ops, feed)

    def _params_from_list(self, params: List[np.ndarray]) -> "OrderedDict[str, np.ndarray]":
        """
        :param params: ([np.ndarray]) an unnamed parameter list (model files of the library <= 2.7)
        :return: (OrderedDict) the model's variable names -> the arrays, in order
        """
        names = list(self._param_load_ops) if self._param_load_ops is not None else \
            [var.name for var in self.get_parameter_list()]
        return parameter_io.name_unnamed_arrays(names, params, self._select_legacy_arrays)

    def _select_legacy_arrays(self, params: List[np.ndarray], n_params: int) -> List[np.ndarray]:
        """
        :param params: ([np.ndarray]) the arrays of an unnamed parameter list
        :param n_params: (int) the model's number of parameters
        :return: ([np.ndarray]) those of the model: the first ``n_params`` (algorithms whose old files repeat
            arrays otherwise override this)
        """
        return params[:n_params]

    # ------------------------------------------------------------------ saving and loading
    def save(self, save_path: Any, cloudpickle: bool = False, include_training_state: bool = False) -> None:
        """
        Write the model (settings and parameters) to a file: the settings the algorithm names in
        ``_saved_settings`` and every parameter (the replay buffer of an off-policy model is not part of it, see
        ``save_replay_buffer``).

        :param save_path: (str or file-like) where to write it
        :param cloudpickle: (bool) write the older cloudpickle format instead of the zip archive
        :param include_training_state: (bool) also store what continuing training needs (optimizer state,
            generators, counters, the replay buffer), so that the loaded model's next
            ``learn(..., reset_num_timesteps=False)`` continues exactly as this model's would (zip archive only)

        On a rank other than 0 of a data-parallel model (PPO2, A2C under ``mpirun``) nothing is written: the ranks
        hold the same parameters, and rank 0 writes them.
        """
        if self._data_parallel is not None and not self._data_parallel.is_root:
            return
        extra = self._extra_members_to_save()
        if include_training_state:
            extra.update(training_state_members(self))
        data = self._settings_to_save()
        data.update(self._added_settings)
        self._save_to_file(save_path, data=data, params=self.get_parameters(), cloudpickle=cloudpickle, extra=extra)

    # what saving_with adds to the saved settings while it is in effect
    _added_settings: Dict[str, Any] = {}

    @contextmanager
    def saving_with(self, settings: Dict[str, Any]) -> Iterator[None]:
        """
        Within this context, :meth:`save` writes ``settings`` into the file's ``data`` after the model's own: how a
        model that holds this one (HER) keeps its own settings in the file of the model it trains.

        :param settings: (dict) the entries to add, by name
        """
        self._added_settings = dict(settings)
        try:
            yield
        finally:
            del self._added_settings

    @classmethod
    def load(cls: Type[_Model], load_path: Any, env: Any = None, custom_objects: Optional[Dict[str, Any]] = None,
             **kwargs: Any) -> _Model:
        """
        Rebuild a model from a file written by ``save``.

        Loading never runs code from the file: its entries must be the settings this algorithm saves, each of the
        expected kind (see :mod:`stable_baselines.common.storage.persistence` and the manual's page on saving).

        :param load_path: (str or file-like) the model file
        :param env: (gymnasium.Env or VecEnv) the environment to run the model on (None: predict only)
        :param custom_objects: (dict) entries to use instead of the file's, which are then not read (for objects
            a file holds that cannot be rebuilt here)
        :param kwargs: attributes to change on the loaded model; they also replace the file's entries of the same
            name without reading them (e.g. ``policy=CustomPolicy`` for a policy class that the file stores by
            value, which the safe loader does not run), except ``policy_kwargs``, which must equal the stored ones
        :return: (BaseRLModel) the model
        """
        return load_model(cls, load_path, env, custom_objects, kwargs)

    @classmethod
    def load_with_extra_settings(cls: Type[_Model], load_path: Any, env: Any, custom_objects: Optional[dict],
                                 kwargs: Dict[str, Any], extra_settings: Dict[str, SettingKind]) -> _Model:
        """
        The counterpart of :meth:`saving_with` for a model that holds this one (HER): :meth:`load` (without its
        overrides), also accepting ``extra_settings`` (names and kinds) beside the algorithm's own; those are
        checked and not set.
        """
        return load_model(cls, load_path, env, custom_objects, kwargs, extra_settings)

    def _setting_to_save(self, name: str) -> Any:
        """
        :param name: (str) one of the algorithm's saved settings
        :return: (Any) its value in the file (algorithms whose attribute differs from the setting override this)
        """
        return getattr(self, name)

    def _settings_to_save(self) -> Dict[str, Any]:
        """
        :return: (dict) the algorithm's settings (:attr:`_saved_settings`), then those every model saves
        """
        data = {name: self._setting_to_save(name) for name in self._saved_settings}
        data.update((name, getattr(self, name)) for name in COMMON_SETTINGS)
        return data

    def _extra_members_to_save(self) -> Dict[str, Any]:
        """
        :return: (dict) the extra members ``save`` writes beside the original's three, name -> value (see
            :mod:`stable_baselines.common.storage.extra_members`): the VecNormalize statistics, if any
        """
        return normalization.statistics_members(self.get_normalization_statistics())

    def restore_extra_members(self, members: Dict[str, Any], what: str) -> None:
        """
        Take what the model needs from the extra members of its file (``load`` calls this once the model is built,
        its parameters loaded and its environment set); algorithms and features extend ``_restore_extra_members``.

        :param members: (dict) the file's registered extra members, decoded (empty for files without any)
        :param what: (str) the file, for messages
        """
        self._restore_extra_members(members, what)

    def _restore_extra_members(self, members: Dict[str, Any], what: str) -> None:
        """
        Take what the model needs from the extra members of its file (called by :meth:`restore_extra_members`).

        :param members: (dict) the file's registered extra members, decoded (empty for files without any)
        :param what: (str) the file, for messages
        """
        statistics = normalization.statistics_from_members(members, self.observation_space, what)
        self._file_normalization = statistics
        made = None
        if statistics is not None and self.env is not None:
            env = normalization.normalized_env(self.env, self._vectorize_action, self._vec_normalize_env,
                                               statistics, what)
            if env is not self.env:
                self.set_env(env)
                made = self._vec_normalize_env
        restore_training_state_members(self, members, what, made)

    @staticmethod
    def _save_to_file(save_path: Any, data: Optional[Dict[str, Any]] = None, params: Any = None,
                      cloudpickle: bool = False, extra: Optional[Dict[str, Any]] = None) -> None:
        """
        Write a model file (the zip archive, or the older cloudpickle format); writing to a path is atomic.

        :param save_path: (str or file-like) where to write
        :param data: (dict) the settings
        :param params: (OrderedDict) the parameters
        :param cloudpickle: (bool) the older format
        :param extra: (dict) extra members of the zip archive (the cloudpickle format has no place for them)
        """
        if cloudpickle:
            if extra:
                warnings.warn("The cloudpickle format holds only the settings and parameters: {} not saved (save "
                              "without cloudpickle=True to keep them)".format(", ".join(sorted(extra))))
            save_util.save_to_pkl(save_path, data, params)
        else:
            save_util.save_to_zip(save_path, data, params, extra=extra)

    @staticmethod
    def _load_from_file(load_path: Any, load_data: bool = True, custom_objects: Optional[Dict[str, Any]] = None
                        ) -> Tuple[Optional[Dict[str, Any]], Any]:
        """
        Read a model file (zip archive or older .pkl) without building a model.

        :param load_path: (str or file-like) the file
        :param load_data: (bool) also read the settings
        :param custom_objects: (dict) entries used instead of the file's
        :return: (dict, OrderedDict or list) the settings (None without ``load_data``) and the parameters
        """
        data, params = save_util.load_model_file(load_path, custom_objects=custom_objects, load_data=load_data)
        for key in ("observation_space", "action_space"):
            if data is not None and data.get(key) is not None:
                data[key] = convert_space(data[key])
        return data, params

    # ------------------------------------------------------------------ export
    def _export_spec(self, batch_size: Optional[int] = None) -> ExportSpec:
        """
        :param batch_size: (int) recurrent policies: the number of sequences stepped at once (None: n_envs)
        :return: (ExportSpec) the acting graph of the model, as ``export`` needs it (each family defines it)
        """
        raise NotImplementedError("{} cannot be exported".format(type(self).__name__))

    def export(self, path: str, format: str = "savedmodel",  # pylint: disable=redefined-builtin
               batch_size: Optional[int] = None) -> None:
        """
        Write the deterministic policy as a standalone inference function that takes RAW observations (batch
        first; the observation normalisation of a ``VecNormalize`` env is built in with its current statistics, or
        with those of the model file when the model was loaded without an env)
        and returns the action as ``predict(obs, deterministic=True)`` does. Recurrent policies also take the
        state and the episode-start mask, and return the new state. See :ref:`export`.

        :param path: (str) where to write: a directory for "savedmodel", a file for "tflite" and "onnx"
        :param format: (str) "savedmodel" (TensorFlow SavedModel, signature ``serving_default``), "tflite"
            (TensorFlow Lite), "onnx" (through tf2onnx: ``pip install stable-baselines[export]``), or "sb3": the
            whole model as a Stable-Baselines3 model file that the successor loads and trains on
            (``pip install stable-baselines[sb3]``, see :ref:`sb3_migration`)
        :param batch_size: (int) recurrent policies only: how many sequences the function steps at once (None:
            the model's number of environments); feed-forward policies take any batch
        """
        if format == "sb3":
            if batch_size is not None:
                raise ValueError("batch_size is for the export of recurrent policies as inference functions; "
                                 "format='sb3' writes a model, got batch_size={!r}".format(batch_size))
            from stable_baselines.common.export.sb3 import export_sb3  # needs the sb3 extra: imported on use
            export_sb3(self, path)
            return
        check_export_format(format)
        export_model(self._export_spec(batch_size), self.get_normalization_statistics(), path, format, batch_size)

    # ------------------------------------------------------------------ exact resume (common/model/training_state.py)
    #: whether the model keeps a replay buffer, part of its training state (see :meth:`replay_buffer_state`)
    keeps_replay_buffer = False

    def training_state_extras(self) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
        """
        :return: (dict, dict) what the algorithm's next ``learn`` depends on beyond what
            :func:`~stable_baselines.common.model.training_state.capture_training_state` takes from every model:
            JSON-able values and numeric arrays by name (nothing by default)
        """
        return {}, {}

    def restore_training_state_extras(self, info: Dict[str, Any], arrays: Dict[str, np.ndarray]) -> None:
        """
        Take back what :meth:`training_state_extras` gave (checking it: it comes from a file).

        :param info: (dict) the JSON-able values
        :param arrays: (dict) the arrays by name
        """
        if info or arrays:
            raise ValueError("{} keeps no extra training state, got {}".format(type(self).__name__,
                                                                              sorted(info) + sorted(arrays)))

