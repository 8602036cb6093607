"""
Carry a model file forward to Stable-Baselines3::

    python -m stable_baselines.export_sb3 MODEL OUT [--algo NAME] [--vec-normalize FILE_OR_FOLDER]

MODEL is a file saved by this library or by the original one (``.zip`` or the older ``.pkl``), read by the
data-only loader; OUT is the Stable-Baselines3 file to write. The algorithm is read from the settings the file
holds (``--algo`` names it instead). ``--vec-normalize`` converts normalisation statistics kept beside the model:
a ``VecNormalize.save`` file, or a folder of ``obs_rms.pkl``/``ret_rms.pkl`` as the rl-baselines-zoo kept them;
they are written as the successor's VecNormalize file next to OUT. Statistics inside the model file are always
converted. Needs ``pip install stable-baselines[sb3]``.
"""
import argparse
import os
import sys
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

import stable_baselines
from stable_baselines.common import save_util
from stable_baselines.common.base_class import BaseRLModel
from stable_baselines.common.export.sb3 import export_sb3, final_path, vec_normalize_path, write_vec_normalize
from stable_baselines.common.export.sb3.support import SpacesOnlyEnv
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize

# settings only one algorithm saves, in the order they are tried (GAIL saves TRPO's settings too)
_SIGNATURES: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("HER", ("n_sampled_goal", "goal_selection_strategy")),
    ("GAIL", ("hidden_size_adversary", "adversary_entcoeff")),
    ("TRPO", ("max_kl", "cg_iters")),
    ("PPO1", ("clip_param", "timesteps_per_actorbatch")),
    ("PPO2", ("nminibatches", "noptepochs")),
    ("ACER", ("q_coef", "replay_ratio")),
    ("ACKTR", ("kfac_clip", "vf_fisher_coef")),
    ("A2C", ("alpha", "lr_schedule")),
    ("DDPG", ("nb_rollout_steps", "nb_train_steps")),
    ("TD3", ("policy_delay", "target_policy_noise")),
    ("SAC", ("target_entropy", "ent_coef")),
    ("DQN", ("exploration_fraction", "target_network_update_freq")),
)


def algorithm_of_settings(data: Dict[str, Any]) -> str:
    """
    :param data: (dict) the settings of a model file
    :return: (str) the algorithm that saved them (a ValueError listing what it looked for if none fits)
    """
    for name, keys in _SIGNATURES:
        if all(key in data for key in keys):
            return name
    raise ValueError("Cannot tell which algorithm saved this file: its settings {} have none of the signatures {} "
                     "(give --algo)".format(sorted(data), {name: list(keys) for name, keys in _SIGNATURES}))


def _algorithm_class(name: str) -> Any:
    model_class = getattr(stable_baselines, name, None)
    if model_class is None:
        raise ValueError("Unknown algorithm {!r}{}".format(
            name, " (DDPG, GAIL, PPO1 and TRPO need mpi4py)" if name in ("DDPG", "GAIL", "PPO1", "TRPO") else ""))
    return model_class


def load_model(path: str, algorithm: Optional[str] = None) -> BaseRLModel:
    """
    :param path: (str) a model file of this library or of the original one
    :param algorithm: (str) the algorithm's name (None: read from the file)
    :return: (BaseRLModel) the model, loaded without an env
    """
    if algorithm is None:
        data, _ = save_util.load_model_file(path)
        algorithm = algorithm_of_settings(data or {})
    return _algorithm_class(algorithm.upper()).load(path)


def side_statistics(path: str, model: BaseRLModel) -> Any:
    """
    :param path: (str) a ``VecNormalize.save`` file, or a folder with ``obs_rms.pkl`` and ``ret_rms.pkl``
    :param model: (BaseRLModel) the model they normalise for
    :return: (NormalizationStatistics) the statistics
    """
    observation_space, action_space = model.observation_space, model.action_space
    if observation_space is None or action_space is None:
        raise ValueError("the model file holds no spaces")
    venv = DummyVecEnv([lambda: SpacesOnlyEnv(observation_space, action_space)])
    if os.path.isdir(path):
        normalizer = VecNormalize(venv, training=False)
        normalizer.load_running_average(path)
    else:
        normalizer = VecNormalize.load(path, venv)
    return normalizer.get_statistics()


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stable_baselines.export_sb3",
                                     description="Convert a Stable Baselines model file to Stable-Baselines3.")
    parser.add_argument("model", help="the model file (.zip or .pkl, of this library or of the original one)")
    parser.add_argument("out", help="the Stable-Baselines3 model file to write")
    parser.add_argument("--algo", default=None, help="the algorithm (default: read from the file)")
    parser.add_argument("--vec-normalize", default=None,
                        help="VecNormalize statistics kept beside the model: a VecNormalize.save file or a folder "
                             "of obs_rms.pkl/ret_rms.pkl")
    args = parser.parse_args(argv)
    try:
        model = load_model(args.model, args.algo)
        statistics = None if args.vec_normalize is None else side_statistics(args.vec_normalize, model)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            notes: List[str] = export_sb3(model, args.out)
        del caught  # the notes say it once, below
        out = final_path(args.out)
        if statistics is not None:
            write_vec_normalize(statistics, model.observation_space, model.action_space, vec_normalize_path(out))
            notes.append("the VecNormalize statistics of {} are in {}".format(args.vec_normalize,
                                                                               vec_normalize_path(out)))
    except (ValueError, ImportError, OSError) as error:
        print("export_sb3: {}".format(error), file=sys.stderr)
        return 1
    print("wrote {}".format(out))
    for note in notes:
        print("  note: {}".format(note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
