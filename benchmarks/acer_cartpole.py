"""
Train ACER on CartPole-v1 with the rl-baselines-zoo hyper-parameters and report the score with deterministic
and with stochastic actions (the zoo's enjoy script evaluates ACER stochastically), steps/s and wall time.

rl-baselines-zoo, hyperparams/acer.yml::

    CartPole-v1:
      n_envs: 8
      n_timesteps: !!float 1e5
      policy: 'MlpPolicy'
      ent_coef: 0.0

Every other argument keeps the ACER default (n_steps=20, learning_rate=7e-4 with lr_schedule='linear',
replay_ratio=4, buffer_size=5000, replay_start=1000, trust_region=True, ...). The zoo agent of the original
library (tests/data/legacy_models/acer/CartPole-v1.pkl) stores exactly these values (ent_coef 0.0, n_envs 8,
n_steps 20, learning_rate 7e-4, lr_schedule 'linear', q_coef 0.5, replay_ratio 4, replay_start 1000,
rprop_alpha 0.99, rprop_epsilon 1e-5, max_grad_norm 10, gamma 0.99).

    python benchmarks/acer_cartpole.py --seeds 0 1 2 3 4
    python benchmarks/acer_cartpole.py --seeds 0 --timesteps 300000
"""
import argparse
import time

import numpy as np

from stable_baselines import ACER
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.vec_env import DummyVecEnv

ZOO_KWARGS = dict(ent_coef=0.0)
ZOO_N_ENVS = 8
ZOO_TIMESTEPS = 100000
N_EVAL_EPISODES = 20


def _evaluate(model, seed: int, deterministic: bool) -> tuple:
    if model.initial_state is None:
        eval_env = make_env("CartPole-v1")
        eval_env.reset(seed=1000 + seed)
    else:  # recurrent models act on a batch of n_envs observations: evaluate on a VecEnv
        eval_env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(ZOO_N_ENVS)])
        eval_env.seed(1000 + seed)
    return evaluate_policy(model, eval_env, n_eval_episodes=N_EVAL_EPISODES, deterministic=deterministic)


def run(seed: int, timesteps: int = ZOO_TIMESTEPS, policy: str = "MlpPolicy") -> dict:
    """
    Train one agent and evaluate it.

    :param seed: (int) the seed of the model (the evaluation env is seeded with 1000 + seed)
    :param timesteps: (int) the training budget
    :param policy: (str) the policy name
    :return: (dict) seed, det / det_std and sto / sto_std (mean and std of the return over 20 episodes with
        deterministic and stochastic actions), wall and cpu (seconds of training), fps (timesteps / wall),
        q_start (the critic's Q of the all-zero start state, mean over the actions; NaN for recurrent policies)
    """
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(ZOO_N_ENVS)])
    model = ACER(policy, env, seed=seed, n_cpu_tf_sess=1, **ZOO_KWARGS)
    start, start_cpu = time.time(), time.process_time()
    model.learn(timesteps)
    wall, cpu = time.time() - start, time.process_time() - start_cpu
    det, det_std = _evaluate(model, seed, deterministic=True)
    sto, sto_std = _evaluate(model, seed, deterministic=False)
    return dict(seed=seed, det=det, det_std=det_std, sto=sto, sto_std=sto_std, wall=wall, cpu=cpu,
                fps=timesteps / wall, q_start=_q_start(model))


def _q_start(model) -> float:
    """The critic's value of the CartPole start state (all zeros), mean over the two actions."""
    if model.initial_state is not None:
        return float("nan")
    policy = model.step_model
    q_values = model.sess.run(policy.q_value, {policy.obs_ph: np.zeros((1,) + policy.ob_space.shape, np.float32)})
    return float(np.mean(q_values))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=ZOO_TIMESTEPS)
    parser.add_argument("--policy", default="MlpPolicy")
    args = parser.parse_args()
    results = []
    for seed in args.seeds:
        result = run(seed, args.timesteps, args.policy)
        results.append(result)
        print("acer seed {seed}: deterministic {det:.1f} +/- {det_std:.1f}, stochastic {sto:.1f} +/- {sto_std:.1f}, "
              "Q(start) {q_start:.1f}, {fps:.0f} steps/s, wall {wall:.1f} s, cpu {cpu:.1f} s".format(**result),
              flush=True)
    print("acer: mean deterministic {:.1f}, mean stochastic {:.1f} over {} seeds, median {:.0f} steps/s".format(
        np.mean([r["det"] for r in results]), np.mean([r["sto"] for r in results]), len(results),
        np.median([r["fps"] for r in results])))


if __name__ == "__main__":
    main()
