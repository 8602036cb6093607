"""
Train DDPG on one environment per MPI worker:

    python -m stable_baselines.ddpg.main --env-id Pendulum-v1 --num-timesteps 100000
    mpirun -np 4 python -m stable_baselines.ddpg.main --env-id HalfCheetah-v5

Every worker runs its own environment (seeded ``seed + 1000000 * rank``); the gradients are averaged over the
workers, so all of them hold the same networks. Only rank 0 logs (to stdout, or to ``OPENAI_LOGDIR`` when set).

Additions of ours (the original had neither): ``--save-path PATH`` saves the model of rank 0 to PATH at the end;
``--params-checksum`` makes every rank print ``rank <r> params sha256 <hex>``, a checksum of its network, target
and normalization parameters (not the perturbed actor copies of parameter noise, which are random per worker by
design), to check that the workers ended identical.
"""
import argparse
import hashlib
import os
import time
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from mpi4py import MPI

from stable_baselines import logger
from stable_baselines.bench import Monitor
from stable_baselines.common.gym_compat import make_env, reset_env
from stable_baselines.common.misc_util import boolean_flag
from stable_baselines.common.noise import AdaptiveParamNoiseSpec, NormalActionNoise, OrnsteinUhlenbeckActionNoise
from stable_baselines.ddpg import DDPG
from stable_baselines.ddpg.policies import LnMlpPolicy, MlpPolicy

_NOISE_FORMS = "none, adaptive-param_<stddev>, normal_<stddev> or ou_<stddev>"

# the switches of the command line: name -> default (each gets --name and --no-name)
_SWITCHES = (("render-eval", False), ("layer-norm", True), ("render", False), ("normalize-returns", False),
             ("normalize-observations", True), ("popart", False), ("evaluation", False))

# the valued options: name -> (type, default); the sizes are per MPI worker (and per cycle for the step counts)
_OPTIONS = (("env-id", str, "HalfCheetah-v5"), ("seed", int, 0), ("critic-l2-reg", float, 1e-2),
            ("batch-size", int, 64), ("actor-lr", float, 1e-4), ("critic-lr", float, 1e-3), ("gamma", float, 0.99),
            ("reward-scale", float, 1.), ("clip-norm", float, None), ("nb-train-steps", int, 50),
            ("nb-eval-steps", int, 100), ("nb-rollout-steps", int, 100), ("noise-type", str, "adaptive-param_0.2"),
            ("num-timesteps", int, int(1e6)))


def _one_noise(description: str, nb_actions: int) -> Tuple[str, Any]:
    """
    :param description: (str) one noise of ``--noise-type`` (not ``none``)
    :param nb_actions: (int) the dimension of the action space
    :return: (str, Any) ``"action"`` or ``"param"``, and the noise object
    """
    kind, _, scale = description.partition('_')
    try:
        stddev = float(scale)
    except ValueError:
        stddev = None
    if stddev is not None and kind == 'adaptive-param':
        return "param", AdaptiveParamNoiseSpec(initial_stddev=stddev, desired_action_stddev=stddev)
    if stddev is not None and kind in ('normal', 'ou'):
        noise_class = NormalActionNoise if kind == 'normal' else OrnsteinUhlenbeckActionNoise
        return "action", noise_class(mean=np.zeros(nb_actions), sigma=stddev * np.ones(nb_actions))
    raise ValueError('unknown noise type "{}": expected {}'.format(description, _NOISE_FORMS))


def parse_noise_types(noise_type: str, nb_actions: int) -> Tuple[Any, Any]:
    """
    Read ``--noise-type``: noises separated by commas, each ``none``, ``adaptive-param_<stddev>``,
    ``normal_<stddev>`` or ``ou_<stddev>`` (a later one of the same kind replaces an earlier one).

    :param noise_type: (str) the description
    :param nb_actions: (int) the dimension of the action space
    :return: (ActionNoise, AdaptiveParamNoiseSpec) the action noise and the parameter noise (each can be None)
    """
    chosen = {"action": None, "param": None}
    for description in (part.strip() for part in noise_type.split(',')):
        if description != 'none':
            kind, noise = _one_noise(description, nb_actions)
            chosen[kind] = noise
    return chosen["action"], chosen["param"]


def params_checksum(model: DDPG) -> str:
    """
    :param model: (DDPG) the model
    :return: (str) the sha256 of the network, target and normalization parameters (in parameter-list order)
    """
    digest = hashlib.sha256()
    for name, value in model.get_parameters().items():
        if not name.startswith(("noise/", "noise_adapt/")):
            digest.update(name.encode("utf-8"))
            digest.update(np.ascontiguousarray(value).tobytes())
    return digest.hexdigest()


def _monitored_env(env_id: str, log_dir: Optional[str], name: str) -> Monitor:
    """:return: (Monitor) a new env, its episodes written to ``<log_dir>/<name>`` when there is a log dir"""
    return Monitor(make_env(env_id), log_dir and os.path.join(log_dir, name))


def _print_checksums(model: DDPG, rank: int) -> None:
    """Gather the parameter checksum of every worker on rank 0, which prints them in rank order."""
    checksums = MPI.COMM_WORLD.gather(params_checksum(model), root=0)
    if rank == 0:
        for worker, checksum in enumerate(checksums or []):
            print("rank {} params sha256 {}".format(worker, checksum), flush=True)


def run(env_id: str, seed: int, noise_type: str, layer_norm: bool, evaluation: bool, save_path: Optional[str] = None,
        params_checksum_flag: bool = False, **kwargs: Any) -> DDPG:
    """
    Train DDPG on this MPI worker.

    :param env_id: (str) the environment id
    :param seed: (int) the base seed (this worker uses ``seed + 1000000 * rank``)
    :param noise_type: (str) the noises, see :func:`parse_noise_types`
    :param layer_norm: (bool) use the policy with layer normalization
    :param evaluation: (bool) rank 0 also runs evaluation episodes
    :param save_path: (str) where rank 0 saves the model at the end (None: not saved)
    :param params_checksum_flag: (bool) print the parameter checksum of every rank at the end
    :param kwargs: (dict) ``num_timesteps``, ``popart`` and the other arguments of DDPG
    :return: (DDPG) the trained model
    """
    rank = MPI.COMM_WORLD.Get_rank()
    if rank != 0:
        logger.set_level(logger.DISABLED)
    log_dir = logger.get_dir()
    env = _monitored_env(env_id, log_dir, str(rank))
    eval_env = _monitored_env(env_id, log_dir, 'gym_eval') if evaluation and rank == 0 else None
    action_shape = env.action_space.shape
    if not action_shape:
        raise ValueError("DDPG needs a Box action space, {} has {}".format(env_id, env.action_space))
    action_noise, param_noise = parse_noise_types(noise_type, action_shape[-1])

    seed += 1000000 * rank
    logger.info('rank {}: seed={}, logdir={}'.format(rank, seed, logger.get_dir()))
    if eval_env is not None:
        reset_env(eval_env, seed=seed)
    start_time = time.time() if rank == 0 else 0

    num_timesteps = kwargs.pop('num_timesteps')
    kwargs['enable_popart'] = kwargs.pop('popart')
    model = DDPG(policy=LnMlpPolicy if layer_norm else MlpPolicy, env=env, eval_env=eval_env,
                 param_noise=param_noise, action_noise=action_noise, buffer_size=int(1e6), verbose=2, seed=seed,
                 **kwargs)
    model.learn(total_timesteps=num_timesteps)
    env.close()
    if eval_env is not None:
        eval_env.close()
    if rank == 0:
        logger.info('total runtime: {}s'.format(time.time() - start_time))
        if save_path is not None:
            model.save(save_path)
    if params_checksum_flag:
        _print_checksums(model, rank)
    return model


def parse_args(args: Optional[List[str]] = None) -> Dict[str, Any]:
    """
    Read the command line.

    :param args: ([str]) the arguments (None: ``sys.argv``)
    :return: (dict) the keyword arguments of :func:`run`
    """
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    for name, default in _SWITCHES:
        boolean_flag(parser, name, default=default)
    for name, kind, value in _OPTIONS:
        parser.add_argument('--' + name, type=kind, default=value)
    parser.add_argument('--save-path', type=str, default=None,
                        help='save the model of rank 0 there at the end (addition of ours)')
    parser.add_argument('--params-checksum', action='store_true', dest='params_checksum_flag',
                        help='print the sha256 of the parameters of every rank at the end (addition of ours)')
    return vars(parser.parse_args(args))


def main(args: Optional[List[str]] = None) -> None:
    """
    Run DDPG from the command line.

    :param args: ([str]) the arguments (None: ``sys.argv``)
    """
    arguments = parse_args(args)
    if MPI.COMM_WORLD.Get_rank() == 0:
        logger.configure()
    run(**arguments)


if __name__ == '__main__':
    main()
