"""
Train HER on BitFlippingEnv with each supported model class and report the success rate (100 deterministic
evaluation episodes), environment steps/s and wall time.

Settings (goal_selection_strategy 'future', n_sampled_goal 4, max_steps = n_bits, n_cpu_tf_sess 1):

* ``dqn``: discrete actions, 10 bits, 8 000 steps; DQN with layers [64], learning_rate 1e-3, gamma 0.9,
  batch_size 64, buffer 50 000, exploration 1.0 -> 0.02 over the first 10% of training, learning_starts 500,
  target_network_update_freq 500.
* ``sac`` / ``td3`` / ``ddpg``: continuous actions (every positive action component flips its bit), 6 bits,
  5 000 steps; learning rates 1e-3, gamma 0.9, batch 64, layers [64, 64], random_exploration 0.1,
  learning_starts 500 (SAC, TD3), train_freq 1 / gradient_steps 1 (TD3), Gaussian action noise 0.2 (TD3, DDPG);
  DDPG keeps its default rollout / training cycle (nb_rollout_steps 100, nb_train_steps 50).

The rl-baselines-zoo has no BitFlippingEnv entry: these are the settings of our learning tests, with a larger
budget. DDPG runs only when ``stable_baselines.ddpg`` exists (it needs mpi4py).

    python benchmarks/her_bit_flipping.py                       # all model classes, seed 0
    python benchmarks/her_bit_flipping.py --algos dqn --seeds 0 1 2
    python benchmarks/her_bit_flipping.py --algos sac --n-bits 8 --timesteps 30000
"""
import argparse
import importlib
import time

import numpy as np

from stable_baselines.common.bit_flipping_env import BitFlippingEnv

# algo -> (module, class, n_bits, timesteps, kwargs)
PRESETS = {
    "dqn": ("stable_baselines.deepq", "DQN", 10, 8000,
            dict(learning_rate=1e-3, gamma=0.9, batch_size=64, buffer_size=50000, exploration_fraction=0.1,
                 exploration_final_eps=0.02, learning_starts=500, target_network_update_freq=500,
                 policy_kwargs=dict(layers=[64]))),
    "sac": ("stable_baselines.sac", "SAC", 6, 5000,
            dict(learning_rate=1e-3, gamma=0.9, batch_size=64, buffer_size=50000, learning_starts=500,
                 random_exploration=0.1, policy_kwargs=dict(layers=[64, 64]))),
    "td3": ("stable_baselines.td3", "TD3", 6, 5000,
            dict(learning_rate=1e-3, gamma=0.9, batch_size=64, buffer_size=50000, learning_starts=500,
                 train_freq=1, gradient_steps=1, random_exploration=0.1, policy_kwargs=dict(layers=[64, 64]))),
    "ddpg": ("stable_baselines.ddpg", "DDPG", 6, 5000,
             dict(actor_lr=1e-3, critic_lr=1e-3, gamma=0.9, batch_size=64, buffer_size=50000,
                  random_exploration=0.1, policy_kwargs=dict(layers=[64, 64]))),
}


def success_rate(model, env: BitFlippingEnv, n_episodes: int = 100, seed: int = 1000) -> float:
    """
    :param model: (HER) a trained model
    :param env: (BitFlippingEnv) the evaluation env
    :param n_episodes: (int) the number of episodes
    :param seed: (int) seed of the first reset
    :return: (float) the fraction of episodes that reached the goal (deterministic actions)
    """
    successes = []
    obs, _ = env.reset(seed=seed)
    for _ in range(n_episodes):
        done, info = False, {}
        while not done:
            action, _ = model.predict(obs, deterministic=True)
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        successes.append(float(info.get("is_success", False)))
        obs, _ = env.reset()
    return float(np.mean(successes))


def run(algo: str, seed: int, timesteps: int = None, n_bits: int = None, strategy: str = "future") -> dict:
    from stable_baselines.her import HER  # pylint: disable=import-outside-toplevel
    module, name, default_bits, default_steps, kwargs = PRESETS[algo]
    model_class = getattr(importlib.import_module(module), name)
    n_bits = n_bits or default_bits
    timesteps = timesteps or default_steps
    kwargs = dict(kwargs)
    continuous = algo != "dqn"
    if algo in ("td3", "ddpg"):
        from stable_baselines.common.noise import NormalActionNoise  # pylint: disable=import-outside-toplevel
        kwargs["action_noise"] = NormalActionNoise(np.zeros(n_bits), 0.2 * np.ones(n_bits))
    env = BitFlippingEnv(n_bits, continuous=continuous, max_steps=n_bits)
    model = HER("MlpPolicy", env, model_class, n_sampled_goal=4, goal_selection_strategy=strategy, seed=seed,
                n_cpu_tf_sess=1, **kwargs)
    start = time.time()
    model.learn(timesteps)
    wall = time.time() - start
    rate = success_rate(model, BitFlippingEnv(n_bits, continuous=continuous, max_steps=n_bits), seed=1000 + seed)
    return dict(algo=algo, seed=seed, n_bits=n_bits, success=rate, wall=wall, fps=timesteps / wall,
                timesteps=timesteps)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--algos", nargs="+", choices=sorted(PRESETS), default=["dqn", "sac", "td3", "ddpg"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--timesteps", type=int, default=None)
    parser.add_argument("--n-bits", type=int, default=None)
    parser.add_argument("--strategy", default="future", choices=["future", "final", "episode", "random"])
    args = parser.parse_args()
    for algo in args.algos:
        if importlib.util.find_spec(PRESETS[algo][0]) is None:
            print("her+{}: skipped ({} is not available)".format(algo, PRESETS[algo][0]), flush=True)
            continue
        results = []
        for seed in args.seeds:
            result = run(algo, seed, args.timesteps, args.n_bits, args.strategy)
            results.append(result)
            print("her+{algo} seed {seed}: {n_bits} bits, {timesteps} steps, success rate {success:.2f}, "
                  "{fps:.0f} steps/s, wall {wall:.1f} s".format(**result), flush=True)
        print("her+{}: mean success rate {:.2f} over {} seeds, median {:.0f} steps/s".format(
            algo, np.mean([r["success"] for r in results]), len(results), np.median([r["fps"] for r in results])),
            flush=True)


if __name__ == "__main__":
    main()
