"""
Train ACER on CartPole-v1 with the rl-baselines-zoo hyper-parameters and report the score with deterministic
and with stochastic actions (the zoo's enjoy script evaluates ACER stochastically), steps/s, wall and CPU time.

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
rprop_alpha 0.99, rprop_epsilon 1e-5, max_grad_norm 10, gamma 0.99); its format (releases 2.2/2.3) did
not record buffer_size, trust_region, correction_term, alpha, delta nor the number of timesteps trained.

    python benchmarks/acer_cartpole.py --seeds 0 1 2 3 4
    python benchmarks/acer_cartpole.py --seeds 0 --timesteps 300000
    python benchmarks/acer_cartpole.py --seeds 0 1 2 3 4 --lr-schedule constant --replay-ratio 8

Besides the evaluation scores, it prints ``best100``: the best mean return of 100 consecutive training
episodes (the Monitor records of the 8 training envs, in the order the episodes ended), the figure gym's
CartPole-v1 reward threshold (475) refers to, and ``last100``, the mean of the last 100 training episodes.
The results of seeds 0-9 are in docs/modules/acer.rst.
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


def training_episode_rewards(env: DummyVecEnv) -> np.ndarray:
    """
    The returns of the finished training episodes of all the envs, in the order the episodes ended.

    The envs of a DummyVecEnv step in lockstep, so an episode of env ``i`` ends at the env-step count given by
    the running sum of that env's episode lengths; ties are broken by the env index.

    :param env: (DummyVecEnv) the training env, each sub-env a Monitor
    :return: (np.ndarray) the episode returns
    """
    ends = []
    for env_idx, monitor in enumerate(env.envs):
        if not isinstance(monitor, Monitor):
            raise TypeError("expected every sub-env to be a Monitor, got {}".format(type(monitor).__name__))
        end_steps = np.cumsum(monitor.get_episode_lengths())
        ends.extend((int(end), env_idx, float(rew)) for end, rew in zip(end_steps, monitor.get_episode_rewards()))
    ends.sort()
    return np.array([rew for _, _, rew in ends], dtype=np.float64)


def best_window_mean(rewards: np.ndarray, window: int = 100) -> float:
    """
    :param rewards: (np.ndarray) episode returns in order
    :param window: (int) the number of consecutive episodes
    :return: (float) the best mean over ``window`` consecutive episodes (NaN when there are fewer episodes)
    """
    if len(rewards) < window:
        return float("nan")
    sums = np.convolve(rewards, np.ones(window), mode="valid")
    return float(sums.max() / window)


def run(seed: int, timesteps: int = ZOO_TIMESTEPS, policy: str = "MlpPolicy", **kwargs) -> dict:
    """
    Train one agent and evaluate it.

    :param seed: (int) the seed of the model (the evaluation env is seeded with 1000 + seed)
    :param timesteps: (int) the training budget
    :param policy: (str) the policy name
    :param kwargs: extra ACER arguments, on top of (and overriding) the zoo's
    :return: (dict) seed, det / det_std and sto / sto_std (mean and std of the return over 20 episodes with
        deterministic and stochastic actions), wall and cpu (seconds of training), fps (timesteps / wall),
        q_start (the critic's Q of the all-zero start state, mean over the actions; NaN for recurrent policies),
        best100 / last100 (best and last mean of 100 consecutive training episodes), episodes (their number)
    """
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(ZOO_N_ENVS)])
    model = ACER(policy, env, seed=seed, n_cpu_tf_sess=1, **dict(ZOO_KWARGS, **kwargs))
    start, start_cpu = time.time(), time.process_time()
    model.learn(timesteps)
    wall, cpu = time.time() - start, time.process_time() - start_cpu
    det, det_std = _evaluate(model, seed, deterministic=True)
    sto, sto_std = _evaluate(model, seed, deterministic=False)
    train_rewards = training_episode_rewards(env)
    last100 = float(np.mean(train_rewards[-100:])) if len(train_rewards) >= 100 else float("nan")
    return dict(seed=seed, det=det, det_std=det_std, sto=sto, sto_std=sto_std, wall=wall, cpu=cpu,
                fps=timesteps / wall, q_start=_q_start(model), best100=best_window_mean(train_rewards),
                last100=last100, episodes=len(train_rewards))


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
    parser.add_argument("--lr-schedule", default=None, help="override the default lr_schedule ('linear')")
    parser.add_argument("--learning-rate", type=float, default=None, help="override the default (7e-4)")
    parser.add_argument("--replay-ratio", type=float, default=None, help="override the default (4)")
    args = parser.parse_args()
    overrides = dict(lr_schedule=args.lr_schedule, learning_rate=args.learning_rate, replay_ratio=args.replay_ratio)
    extra = {key: value for key, value in overrides.items() if value is not None}
    results = []
    for seed in args.seeds:
        result = run(seed, args.timesteps, args.policy, **extra)
        results.append(result)
        print("acer seed {seed}: deterministic {det:.1f} +/- {det_std:.1f}, stochastic {sto:.1f} +/- {sto_std:.1f}, "
              "training best100 {best100:.1f} last100 {last100:.1f} ({episodes} episodes), Q(start) {q_start:.1f}, "
              "{fps:.0f} steps/s, wall {wall:.1f} s, cpu {cpu:.1f} s".format(**result), flush=True)
    print("acer: mean deterministic {:.1f}, mean stochastic {:.1f}, mean best100 {:.1f} over {} seeds, "
          "median {:.0f} steps/s".format(np.mean([r["det"] for r in results]), np.mean([r["sto"] for r in results]),
                                         np.mean([r["best100"] for r in results]), len(results),
                                         np.median([r["fps"] for r in results])))


if __name__ == "__main__":
    main()
