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
from typing import Any, Dict

import numpy as np
from mpi4py import MPI

from stable_baselines import logger
from stable_baselines.bench import Monitor
from stable_baselines.common.gym_compat import make_env, reset_env
from stable_baselines.common.misc_util import boolean_flag
from stable_baselines.common.noise import AdaptiveParamNoiseSpec, NormalActionNoise, OrnsteinUhlenbeckActionNoise
from stable_baselines.ddpg import DDPG
from stable_baselines.ddpg.policies import LnMlpPolicy, MlpPolicy


def parse_noise_types(noise_type: str, nb_actions: int):
    """
    Parse the ``--noise-type`` argument: a comma-separated list of ``none``, ``adaptive-param_<stddev>``,
    ``normal_<stddev>``, ``ou_<stddev>``.

    :param noise_type: (str) the noise description
    :param nb_actions: (int) the dimension of the action space
    :return: (ActionNoise, AdaptiveParamNoiseSpec) the action noise and the parameter noise (each can be None)
    """
    action_noise = None
    param_noise = None
    for current_noise_type in noise_type.split(','):
        current_noise_type = current_noise_type.strip()
        if current_noise_type == 'none':
            continue
        try:
            kind, stddev = current_noise_type.split('_')
            stddev = float(stddev)
        except ValueError:
            raise ValueError('unknown noise type "{}": expected none, adaptive-param_<stddev>, normal_<stddev> or '
                             'ou_<stddev>'.format(current_noise_type)) from None
        if kind == 'adaptive-param':
            param_noise = AdaptiveParamNoiseSpec(initial_stddev=stddev, desired_action_stddev=stddev)
        elif kind == 'normal':
            action_noise = NormalActionNoise(mean=np.zeros(nb_actions), sigma=stddev * np.ones(nb_actions))
        elif kind == 'ou':
            action_noise = OrnsteinUhlenbeckActionNoise(mean=np.zeros(nb_actions), sigma=stddev * np.ones(nb_actions))
        else:
            raise ValueError('unknown noise type "{}": expected none, adaptive-param_<stddev>, normal_<stddev> or '
                             'ou_<stddev>'.format(current_noise_type))
    return action_noise, param_noise


def params_checksum(model: DDPG) -> str:
    """
    :param model: (DDPG) the model
    :return: (str) the sha256 of the network, target and normalization parameters (in parameter-list order)
    """
    digest = hashlib.sha256()
    for name, value in model.get_parameters().items():
        if name.startswith("noise/") or name.startswith("noise_adapt/"):
            continue
        digest.update(name.encode("utf-8"))
        digest.update(np.ascontiguousarray(value).tobytes())
    return digest.hexdigest()


def run(env_id: str, seed: int, noise_type: str, layer_norm: bool, evaluation: bool, save_path=None,
        params_checksum_flag: bool = False, **kwargs) -> DDPG:
    """
    run the training of DDPG

    :param env_id: (str) the environment ID
    :param seed: (int) the initial random seed (the seed of a worker is ``seed + 1000000 * rank``)
    :param noise_type: (str) the wanted noises ('adaptive-param_<stddev>', 'normal_<stddev>', 'ou_<stddev>'),
        can use multiple noise type by seperating them with commas
    :param layer_norm: (bool) use layer normalization
    :param evaluation: (bool) enable evaluation of DDPG training (on rank 0)
    :param save_path: (str) where rank 0 saves the model at the end (None: not saved)
    :param params_checksum_flag: (bool) print the parameter checksum of every rank at the end
    :param kwargs: (dict) extra keywords for the training (num_timesteps and the DDPG arguments)
    :return: (DDPG) the trained model
    """
    # Configure things.
    rank = MPI.COMM_WORLD.Get_rank()
    if rank != 0:
        logger.set_level(logger.DISABLED)

    # Create envs.
    log_dir = logger.get_dir()
    env = make_env(env_id)
    env = Monitor(env, log_dir and os.path.join(log_dir, str(rank)))

    if evaluation and rank == 0:
        eval_env = make_env(env_id)
        eval_env = Monitor(eval_env, log_dir and os.path.join(log_dir, 'gym_eval'))
    else:
        eval_env = None

    # Parse noise_type
    nb_actions = env.action_space.shape[-1]
    action_noise, param_noise = parse_noise_types(noise_type, nb_actions)

    # Seed everything to make things reproducible.
    seed = seed + 1000000 * rank
    logger.info('rank {}: seed={}, logdir={}'.format(rank, seed, logger.get_dir()))
    if eval_env is not None:
        reset_env(eval_env, seed=seed)

    # Disable logging for rank != 0 to avoid noise.
    start_time = 0
    if rank == 0:
        start_time = time.time()

    if layer_norm:
        policy = LnMlpPolicy
    else:
        policy = MlpPolicy

    num_timesteps = kwargs.pop('num_timesteps')
    kwargs['enable_popart'] = kwargs.pop('popart')

    model = DDPG(policy=policy, env=env, eval_env=eval_env, param_noise=param_noise,
                 action_noise=action_noise, buffer_size=int(1e6), verbose=2, seed=seed, **kwargs)
    model.learn(total_timesteps=num_timesteps)
    env.close()
    if eval_env is not None:
        eval_env.close()
    if rank == 0:
        logger.info('total runtime: {}s'.format(time.time() - start_time))
        if save_path is not None:
            model.save(save_path)
    if params_checksum_flag:
        checksum = params_checksum(model)
        # gather so that the lines come out in rank order
        checksums = MPI.COMM_WORLD.gather(checksum, root=0)
        if rank == 0:
            for other_rank, value in enumerate(checksums):
                print("rank {} params sha256 {}".format(other_rank, value), flush=True)
    return model


def parse_args(args=None) -> Dict[str, Any]:
    """
    parse the arguments for DDPG training

    :param args: ([str]) the command line (None: sys.argv)
    :return: (dict) the arguments
    """
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--env-id', type=str, default='HalfCheetah-v5')
    boolean_flag(parser, 'render-eval', default=False)
    boolean_flag(parser, 'layer-norm', default=True)
    boolean_flag(parser, 'render', default=False)
    boolean_flag(parser, 'normalize-returns', default=False)
    boolean_flag(parser, 'normalize-observations', default=True)
    parser.add_argument('--seed', help='RNG seed', type=int, default=0)
    parser.add_argument('--critic-l2-reg', type=float, default=1e-2)
    parser.add_argument('--batch-size', type=int, default=64)  # per MPI worker
    parser.add_argument('--actor-lr', type=float, default=1e-4)
    parser.add_argument('--critic-lr', type=float, default=1e-3)
    boolean_flag(parser, 'popart', default=False)
    parser.add_argument('--gamma', type=float, default=0.99)
    parser.add_argument('--reward-scale', type=float, default=1.)
    parser.add_argument('--clip-norm', type=float, default=None)
    parser.add_argument('--nb-train-steps', type=int, default=50)  # per epoch cycle and MPI worker
    parser.add_argument('--nb-eval-steps', type=int, default=100)  # per epoch cycle and MPI worker
    parser.add_argument('--nb-rollout-steps', type=int, default=100)  # per epoch cycle and MPI worker
    # choices are adaptive-param_xx, ou_xx, normal_xx, none
    parser.add_argument('--noise-type', type=str, default='adaptive-param_0.2')
    parser.add_argument('--num-timesteps', type=int, default=int(1e6))
    boolean_flag(parser, 'evaluation', default=False)
    parser.add_argument('--save-path', type=str, default=None,
                        help='save the model of rank 0 there at the end (addition of ours)')
    parser.add_argument('--params-checksum', action='store_true', dest='params_checksum_flag',
                        help='print the sha256 of the parameters of every rank at the end (addition of ours)')
    args = parser.parse_args(args)
    dict_args = vars(args)
    return dict_args


def main(args=None) -> None:
    """
    Run DDPG from the command line.

    :param args: ([str]) the command line (None: sys.argv)
    """
    dict_args = parse_args(args)
    if MPI.COMM_WORLD.Get_rank() == 0:
        logger.configure()
    # Run actual script.
    run(**dict_args)


if __name__ == '__main__':
    main()
